// `GET /local-key`: the default workspace's key, for the pages of this server's own origin (how the demo
// that `npm start` serves learns it). Only in the table where the handler is told to share the key.
import { HttpError, sendJson } from '../http.js';
import type { Platform, Route } from './route.js';

export function localKeyRoute({ store, access }: Platform): Route {
  return {
    methods: ['GET'],
    path: '/local-key',
    answer: ({ req, res }) => {
      // Only for a page of this origin: the host check has already refused rebound names, and a page on
      // another origin (even a loopback one, which the keyed routes grant CORS) is refused here.
      if (!access.sameOrigin(req)) throw new HttpError(403, 'the key is given only to pages of this origin', 'OriginNotAllowed');
      const ws = store.state.workspaces[0]!;
      res.setHeader('cache-control', 'no-store');
      sendJson(res, 200, { apiKey: ws.apiKey, workspace: ws.url });
    },
  };
}

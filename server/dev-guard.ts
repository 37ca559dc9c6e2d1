// What the dev and preview servers that carry the platform (`npm start`, `npm run preview`) answer to
// pages of other origins outside /api: nothing. Vite serves the repository's files (the demo's modules,
// and through `/@fs/` whatever `server.fs.allow` names); a page on another loopback port is "same-site"
// with the demo and, by Vite's default CORS, would read them all.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createAccessPolicy, duplicateHost, hasDuplicateHost } from './access.js';
import { HttpError, sendError } from './http.js';

const access = createAccessPolicy();

/**
 * Connect middleware for the paths that are not the platform's: a request from a page of another origin
 * (`Sec-Fetch-Site: cross-site` or `same-site`, or an `Origin` that is not this server's) is 403
 * `OriginNotAllowed`, unless it is a top-level navigation (the browser shows the page to the user but never
 * hands its bytes to the page that linked to it). Requests of this origin's own pages, typed addresses
 * (`none`) and tools that send neither header (curl) go on.
 */
export function refuseForeignPages(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  if (hasDuplicateHost(req)) return sendError(res, duplicateHost());
  const navigation = req.headers['sec-fetch-mode'] === 'navigate' && req.headers['sec-fetch-dest'] === 'document';
  if (access.sameOrigin(req) || (navigation && req.method === 'GET' && req.headers.origin === undefined)) return next();
  res.setHeader('vary', 'Origin, Sec-Fetch-Site');
  sendError(
    res,
    new HttpError(
      403,
      "the dev server's files are served to its own pages only",
      'OriginNotAllowed',
      'open the demo at this server, or call the platform under /api',
    ),
  );
}

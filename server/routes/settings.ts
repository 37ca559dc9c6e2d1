// A workspace's settings: the caption provider it calls. The provider key is written, never read back.
import { badRequest, checkFields, readJson, sendJson } from '../http.js';
import type { Platform, Route } from './route.js';

export function settingsRoute({ store, maxJson }: Platform): Route {
  return {
    methods: ['GET', 'PUT', 'POST'],
    path: '/:workspace/settings',
    otherMethods: 'use GET or PUT',
    answer: async ({ req, res, method, ws: caller }) => {
      const ws = caller!;
      if (method === 'PUT' || method === 'POST') {
        const body = await readJson(req, maxJson);
        checkFields(body, { providerApiKey: 'string', providerBaseUrl: 'string', captionModel: 'string' });
        if (typeof body.providerBaseUrl === 'string' && !/^https?:\/\//.test(body.providerBaseUrl))
          throw badRequest('providerBaseUrl must be an http(s) URL');
        await store.update(() => {
          for (const k of ['providerApiKey', 'providerBaseUrl', 'captionModel'] as const)
            if (typeof body[k] === 'string') ws.settings[k] = body[k];
        });
      }
      // The provider key itself is never returned.
      sendJson(res, 200, {
        settings: {
          providerConfigured: Boolean(ws.settings.providerApiKey),
          providerBaseUrl: ws.settings.providerBaseUrl ?? null,
          captionModel: ws.settings.captionModel ?? 'gpt-4o',
        },
      });
    },
  };
}

// A workspace's settings: the caption provider it calls. The provider key is written, never read back, and
// goes only to the URL it was given for.
import { badRequest, checkFields, HttpError, sendJson } from '../http.js';
import { DEFAULT_PROVIDER_URL } from '../synthetic.js';
import type { Platform, Route } from './route.js';

export function settingsRoute({ store, maxJson }: Platform): Route {
  return {
    methods: ['GET', 'PUT', 'POST'],
    path: '/:workspace/settings',
    otherMethods: 'use GET or PUT',
    answer: async ({ res, method, readJson, ws: caller }) => {
      const ws = caller!;
      if (method === 'PUT' || method === 'POST') {
        const body = await readJson(maxJson);
        checkFields(body, { providerApiKey: 'string', providerBaseUrl: 'string', captionModel: 'string' });
        if (typeof body.providerBaseUrl === 'string') {
          const target = providerUrl(body.providerBaseUrl);
          // The stored key was given for the URL it is stored with: a key holder who could point it elsewhere
          // would receive it in the next call's Authorization header. A new URL takes a key of its own.
          if (ws.settings.providerApiKey && typeof body.providerApiKey !== 'string' && target !== providerUrl(ws.settings.providerBaseUrl))
            throw new HttpError(
              400,
              'providerBaseUrl cannot change without the provider key: the stored key is sent only to the URL it was set with',
              'ProviderKeyRequired',
              'send providerApiKey in the same request as the new providerBaseUrl',
              'providerApiKey',
            );
        }
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

/** A provider base URL as calls use it (the default when unset, no trailing slash); not http(s) is a 400. */
function providerUrl(text: string | undefined): string {
  const refused = () => badRequest('providerBaseUrl must be an http(s) URL', undefined, 'providerBaseUrl');
  const given = text ?? DEFAULT_PROVIDER_URL;
  if (!/^https?:\/\//i.test(given)) throw refused();
  try {
    return new URL(given).href.replace(/\/+$/, '');
  } catch {
    throw refused();
  }
}

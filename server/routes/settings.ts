// A workspace's settings: the caption provider it calls. The provider key is written, never read back, and
// goes only to the URL it was given for.
import { badRequest, checkFields, HttpError, sendJson } from '../http.js';
import { DEFAULT_PROVIDER_URL, providerKey } from '../synthetic.js';
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
        // A blank key is no key: stored, it would read as "not configured" while carrying a URL change.
        const given = typeof body.providerApiKey === 'string' ? body.providerApiKey : undefined;
        const key = providerKey(given);
        const moves =
          typeof body.providerBaseUrl === 'string' && providerUrl(body.providerBaseUrl) !== providerUrl(ws.settings.providerBaseUrl);
        // A key is sent only to the URL it was set with. A key holder who could move the URL alone would receive
        // the stored key in the next call's Authorization header, or, on a workspace without one, the key the
        // owner sets next (as ProviderNotConfigured tells them to). So a new URL comes with a key of its own,
        // whether or not one is stored.
        if (moves && key === undefined)
          throw new HttpError(
            400,
            'providerBaseUrl cannot change without a provider key in the same request: a key is sent only to the URL it was set with',
            'ProviderKeyRequired',
            'send providerApiKey (not blank) in the same request as the new providerBaseUrl',
            'providerApiKey',
          );
        await store.update(() => {
          const settings = ws.settings;
          // A URL moves only with a key of its own (above), which replaces the old URL's here.
          if (moves) settings.providerBaseUrl = body.providerBaseUrl as string;
          if (key !== undefined) settings.providerApiKey = key;
          else if (given !== undefined) delete settings.providerApiKey;
          if (typeof body.captionModel === 'string') settings.captionModel = body.captionModel;
        });
      }
      // The provider key itself is never returned.
      sendJson(res, 200, {
        settings: {
          providerConfigured: providerKey(ws.settings.providerApiKey) !== undefined,
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

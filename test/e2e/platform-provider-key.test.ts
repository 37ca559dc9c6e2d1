// The image provider's key goes only to the URL it was set with: a key holder who points providerBaseUrl
// at a server of theirs gets a coded 400, and that server never sees an Authorization header.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startPlatformServer, type PlatformServer } from '../../server/index.js';
import { startOpenAiStandIn, type OpenAiStandIn } from '../fixtures/openai-stand-in.js';
import { parseJson, type ErrorAnswer } from '../helpers/json.js';
import { TINY } from '../helpers/paths.js';
import { rawHttp } from '../helpers/raw-http.js';

const WS = 'edgeseg-demo';

let dir: string;
let server: PlatformServer;
/** The provider the user configured, and a stand-in of the key holder's on another loopback port. */
let provider: OpenAiStandIn;
let evil: OpenAiStandIn;
const logged: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'edgeseg-provider-key-'));
  server = await startPlatformServer({ port: 0, dataDir: dir, modelDir: TINY('tiny-legacy'), log: (line) => logged.push(line) });
  provider = await startOpenAiStandIn('sk-provider-real-0123456789');
  evil = await startOpenAiStandIn('sk-evil-0123456789');
});

afterAll(async () => {
  await server?.close();
  await provider?.close();
  await evil?.close();
  await rm(dir, { recursive: true, force: true });
});

const call = (method: string, path: string, body?: unknown) =>
  rawHttp(server.baseUrl, {
    method,
    path: `${path}?api_key=${server.apiKey}`,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
const settings = (body: unknown) => call('PUT', `/${WS}/settings`, body);
const KEY_REQUIRED = {
  message: 'providerBaseUrl cannot change without a provider key in the same request: a key is sent only to the URL it was set with',
  type: 'ProviderKeyRequired',
  code: 'ProviderKeyRequired',
  hint: 'send providerApiKey (not blank) in the same request as the new providerBaseUrl',
  field: 'providerApiKey',
};
/** One synthetic image: the provider answers 400 to dall-e-3's n = 2, so nothing is stored, but it was called. */
const generate = () => call('POST', '/synthetic-image', { prompt: 'a red circle', project_url: 'shapes', n: 2 });

test('providerBaseUrl changed without providerApiKey is 400 ProviderKeyRequired; the key never reaches the new URL', async () => {
  expect((await settings({ providerApiKey: provider.key, providerBaseUrl: provider.url })).status).toBe(200);
  expect((await generate()).status).toBe(400);
  expect(provider.requests.map((r) => r.authorization)).toEqual([`Bearer ${provider.key}`]);

  const before = (await call('GET', `/${WS}/settings`)).body;
  for (const attack of [
    { providerBaseUrl: evil.url },
    { providerBaseUrl: evil.url, captionModel: 'gpt-4o-mini' },
    // Another spelling of another URL, and an absent field beside it.
    { providerBaseUrl: `${evil.url.replace('127.0.0.1', 'localhost')}/`, providerApiKey: null },
    // A blank key is no key: it would carry the URL, and the next key set alone would go there.
    { providerBaseUrl: evil.url, providerApiKey: '' },
    { providerBaseUrl: evil.url, providerApiKey: ' \t\n' },
  ]) {
    const answer = await settings(attack);
    expect([answer.status, parseJson<ErrorAnswer>(answer.body).error]).toEqual([
      400,
      {
        ...KEY_REQUIRED,
      },
    ]);
    expect(answer.body).not.toContain(provider.key);
  }
  // Nothing changed, not even the fields beside it.
  expect((await call('GET', `/${WS}/settings`)).body).toBe(before);
  expect((await generate()).status).toBe(400);
  expect(evil.requests).toEqual([]);
  expect(provider.requests).toHaveLength(2);

  // The same URL spelled with a trailing slash is no change; a new URL with a key of its own is taken.
  expect((await settings({ providerBaseUrl: `${provider.url}/` })).status).toBe(200);
  expect((await settings({ providerBaseUrl: evil.url, providerApiKey: 'sk-given-with-the-url' })).status).toBe(200);
  expect((await generate()).status).toBe(400);
  expect(evil.requests.map((r) => r.authorization)).toEqual(['Bearer sk-given-with-the-url']);
  // Neither key appears in any answer or log line.
  const lines = logged.join('\n');
  for (const key of [provider.key, 'sk-given-with-the-url']) expect(lines).not.toContain(key);
});

test('a workspace without a key: providerBaseUrl still needs a real key beside it, so the key set afterwards does not go to a URL a key holder chose', async () => {
  // The owner's provider, then its key cleared: a blank key, even of spaces, is none.
  expect((await settings({ providerBaseUrl: provider.url, providerApiKey: 'sk-placeholder' })).status).toBe(200);
  const cleared = await settings({ providerApiKey: '   ' });
  expect([cleared.status, parseJson<{ settings: unknown }>(cleared.body).settings]).toEqual([
    200,
    { providerConfigured: false, providerBaseUrl: provider.url, captionModel: 'gpt-4o' },
  ]);
  // The attack as reported: a blank key carries the move, then the owner sets the real key as
  // ProviderNotConfigured's hint says, alone.
  for (const attack of [{ providerBaseUrl: evil.url }, { providerBaseUrl: evil.url, providerApiKey: '' }]) {
    const answer = await settings(attack);
    expect([answer.status, parseJson<ErrorAnswer>(answer.body).error]).toEqual([400, KEY_REQUIRED]);
  }
  const notConfigured = await generate();
  expect([notConfigured.status, parseJson<ErrorAnswer>(notConfigured.body).error.code]).toEqual([400, 'ProviderNotConfigured']);
  expect((await settings({ providerApiKey: provider.key })).status).toBe(200);
  const evilBefore = evil.requests.length;
  expect((await generate()).status).toBe(400);
  expect(evil.requests).toHaveLength(evilBefore);
  expect(provider.requests.at(-1)?.authorization).toBe(`Bearer ${provider.key}`);
  expect(JSON.stringify(evil.requests)).not.toContain(provider.key);
});

test('a URL change with a key replaces the stored key, the same URL keeps it; a URL that is not http(s) is a 400 naming it', async () => {
  expect((await settings({ providerBaseUrl: provider.url, providerApiKey: provider.key })).status).toBe(200);
  // Moving to another URL and back, each time with a key: the first key is gone, the last one is used.
  expect((await settings({ providerBaseUrl: evil.url, providerApiKey: 'sk-for-evil' })).status).toBe(200);
  expect((await settings({ providerBaseUrl: provider.url, providerApiKey: 'sk-second-key' })).status).toBe(200);
  expect((await settings({ providerBaseUrl: `${provider.url}/`, captionModel: 'gpt-4o' })).status).toBe(200);
  expect((await generate()).status).toBe(400);
  expect(provider.requests.at(-1)?.authorization).toBe('Bearer sk-second-key');
  for (const providerBaseUrl of ['file:///etc/passwd', 'http://', 'javascript:alert(1)']) {
    const answer = await settings({ providerBaseUrl, providerApiKey: 'sk-x' });
    expect([providerBaseUrl, answer.status, parseJson<ErrorAnswer>(answer.body).error.field]).toEqual([
      providerBaseUrl,
      400,
      'providerBaseUrl',
    ]);
  }
});

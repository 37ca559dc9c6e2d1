import { beforeEach, expect, test } from 'vitest';
import { commands } from 'vitest/browser';
import { AuthenticationError, PlatformClient, RateLimitError } from '../../src/platform/index.js';
import { rejection } from '../helpers/rejection.js';
import { buildPayload } from '../../src/payload/index.js';

const KEY = 'browser-key-123456';
let client: PlatformClient;
let base: string;
beforeEach(async () => {
  await commands.resetTestServer();
  base = await commands.testServerUrl();
  client = new PlatformClient({ apiKey: KEY, baseUrl: base, inferenceUrl: `${base}/infer`, retryBaseMs: 5 });
});

test('runs in Chromium against a cross-origin loopback server (CORS)', async () => {
  expect(new URL(base).origin).not.toBe(location.origin);
  await commands.scriptTestServer('GET /ws', [{ json: { workspace: { name: 'WS', url: 'ws', members: 1, projects: [] } } }]);
  await commands.scriptTestServer('POST /ws/p/search', [{ json: { offset: 0, total: 1, results: [{ id: 'a' }] } }]);
  expect((await client.workspace('ws')).workspace.name).toBe('WS');
  expect((await client.search('ws', 'p', { prompt: 'star', limit: 5 })).results).toEqual([{ id: 'a' }]);
  const requests = await commands.testServerRequests();
  expect(requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /ws', 'POST /ws/p/search']);
  expect(requests[1]!.query.api_key).toBe(KEY);
  expect(JSON.parse(requests[1]!.body)).toEqual({ prompt: 'star', limit: 5 });
});

test('errors map to their classes in the browser, and Retry-After is readable across origins', async () => {
  await commands.scriptTestServer('GET /ws', [{ status: 401, json: { error: { message: 'bad key', type: 'OAuthException' } } }]);
  const e = await rejection(client.workspace('ws'), AuthenticationError);
  expect(e).toBeInstanceOf(AuthenticationError);
  expect(e.message).not.toContain(KEY);
  const noRetry = new PlatformClient({ apiKey: KEY, baseUrl: base, maxRetries: 0 });
  await commands.scriptTestServer('GET /ws2', [{ status: 429, json: {}, headers: { 'retry-after': '3' } }]);
  const limited = await rejection(noRetry.workspace('ws2'), RateLimitError);
  expect(limited).toBeInstanceOf(RateLimitError);
  expect(limited.retryAfter).toBe(3);
});

test("hosted segmentation with a Blob upload: the multipart `file` part the platform's Python SDK sends", async () => {
  const classIds = new Uint8Array(12 * 8).map((_, i) => i % 3);
  const payload = buildPayload({ classIds, width: 12, height: 8, class_map: { '0': 'background', '1': 'a', '2': 'b' } });
  await commands.scriptTestServer('POST /infer/p/1', [{ json: { predictions: payload } }]);
  const blob = new Blob([new Uint8Array([1, 2, 3])], { type: 'image/jpeg' });
  expect(await client.segmentHosted('p', 1, blob, { confidence: 30 })).toEqual(payload);
  const [r] = await commands.testServerRequests();
  const form = await new Response(r!.body, { headers: { 'content-type': String(r!.headers['content-type']) } }).formData();
  const file = form.get('file') as File;
  expect([[...form.keys()], file.name, [...new Uint8Array(await file.arrayBuffer())]]).toEqual([['file'], 'imageToUpload', [1, 2, 3]]);
  expect(r!.query.confidence).toBe('30');
});

// Which requests are retried, how long the client waits between tries, and Retry-After in both forms.
import { describe, expect, test } from 'vitest';
import { PlatformClient, RateLimitError, ServerError, TimeoutError, retryAfterSeconds } from '../../../src/platform/index.js';
import { buildPayload } from '../../../src/payload/index.js';
import { formOf } from '../../fixtures/platform-test-server.js';
import { regionMask } from '../../helpers/masks.js';
import { errorOf, TEST_KEY, usePlatformTestServer } from '../../helpers/platform-client.js';

const t = usePlatformTestServer();
const KEY = TEST_KEY;

const page = { json: { offset: 0, total: 1, results: [{ id: 'a' }] } };
const payload = buildPayload({
  classIds: regionMask(12, 8, 3),
  width: 12,
  height: 8,
  class_map: { '0': 'background', '1': 'circle', '2': 'star' },
});
const gaps = () => t.server.requests.slice(1).map((r, i) => r.at - t.server.requests[i]!.at);

describe('search and hosted segmentation are retried like catalog reads', () => {
  test.each([503, 429])('search: %i then 200', async (status) => {
    t.server.script('POST /ws/shapes/search', { status, json: { message: 'busy' } }, page);
    expect((await t.client.search('ws', 'shapes', { tag: 't' })).results).toEqual([{ id: 'a' }]);
    expect(t.server.requests).toHaveLength(2);
    // The retry sends the same request again.
    expect(t.server.requests[1]!.body).toBe(t.server.requests[0]!.body);
  });

  test.each([503, 429])('segmentHosted: %i then 200, the same bytes sent again', async (status) => {
    t.server.script('POST /infer/shapes/2', { status, json: { message: 'busy' } }, { json: payload });
    expect(await t.client.segmentHosted('shapes', 2, new Uint8Array([1, 2, 3]), { confidence: 30 })).toEqual(payload);
    expect(t.server.requests).toHaveLength(2);
    const sent = await Promise.all(
      t.server.requests.map(async (r) => [
        new Uint8Array(await ((await formOf(r)).get('file') as File).arrayBuffer()),
        r.query.get('confidence'),
      ]),
    );
    expect(sent).toEqual([
      [new Uint8Array([1, 2, 3]), '30'],
      [new Uint8Array([1, 2, 3]), '30'],
    ]);
  });

  test('search gives up after maxRetries with the last error', async () => {
    t.server.script('POST /ws/shapes/search', { status: 429, json: { message: 'slow down' } });
    expect(await errorOf(t.client.search('ws', 'shapes'))).toBeInstanceOf(RateLimitError);
    expect(t.server.requests).toHaveLength(3);
  });

  test.each([503, 429])('generateSyntheticImage: %i is not retried, each call costs money', async (status) => {
    t.server.script('POST /synthetic-image', { status, json: { message: 'busy' } }, { json: { prompt: 'p', images: [] } });
    const e = await errorOf(t.client.generateSyntheticImage({ prompt: 'a red circle' }));
    expect(e.status).toBe(status);
    expect(t.server.requests).toHaveLength(1);
  });

  test('generateSyntheticImage: a dropped connection is not retried either', async () => {
    t.server.script('POST /synthetic-image', { drop: true }, { json: { prompt: 'p', images: [] } });
    expect((await errorOf(t.client.generateSyntheticImage({ prompt: 'a red circle' }))).code).toBe('CONNECTION_FAILED');
    expect(t.server.requests).toHaveLength(1);
  });
});

describe('backoff', () => {
  test('each wait is longer than the last: base · 2ⁿ less at most a quarter', async () => {
    const base = 100;
    const patient = new PlatformClient({ apiKey: KEY, baseUrl: t.server.url, retryBaseMs: base, maxRetries: 3 });
    t.server.script('POST /ws/shapes/search', { status: 503, json: {} }, { status: 502, json: {} }, { status: 504, json: {} }, page);
    await patient.search('ws', 'shapes');
    expect(t.server.requests).toHaveLength(4);
    const waits = gaps();
    // Timestamps on a loaded machine only ever come out late, so the checks are floors: wait n is at
    // least 0.75 · base · 2ⁿ, above the most that wait n − 1 can be (with full jitter the floor is 0).
    waits.forEach((w, n) => expect(w).toBeGreaterThanOrEqual(0.75 * base * 2 ** n - 2));
    expect(waits[2]!).toBeGreaterThan(waits[0]! + base);
  });
});

describe('Retry-After', () => {
  test.each([429, 503])('%i with Retry-After in seconds: the retry waits for it', async (status) => {
    t.server.script('POST /ws/shapes/search', { status, json: {}, headers: { 'retry-after': '1' } }, page);
    await t.client.search('ws', 'shapes');
    expect(gaps()[0]!).toBeGreaterThanOrEqual(950);
  });

  test('503 keeps retryAfter on the ServerError, as 429 does on the RateLimitError', async () => {
    const once = new PlatformClient({ apiKey: KEY, baseUrl: t.server.url, maxRetries: 0 });
    t.server.script('GET /ws', { status: 503, json: { message: 'maintenance' }, headers: { 'retry-after': '120' } });
    const e = await errorOf(once.workspace('ws'));
    expect(e).toBeInstanceOf(ServerError);
    expect((e as ServerError).retryAfter).toBe(120);
    expect(e.toJSON().retryAfter).toBe(120);
  });

  test('the HTTP-date form: the retry comes no earlier than that date', async () => {
    // A whole second at least one second ahead, since HTTP dates have one-second resolution.
    const due = Math.ceil((Date.now() + 1000) / 1000) * 1000;
    t.server.script(
      'POST /infer/shapes/2',
      { status: 503, json: {}, headers: { 'retry-after': new Date(due).toUTCString() } },
      { json: payload },
    );
    await t.client.segmentHosted('shapes', 2, 'https://example.com/a.jpg');
    expect(t.server.requests).toHaveLength(2);
    expect(t.server.requests[1]!.at).toBeGreaterThanOrEqual(due - 20);
  });

  test('retryAfterSeconds reads both forms; a past date is no wait, nonsense is none', () => {
    const now = Date.parse('Wed, 21 Oct 2026 07:28:00 GMT');
    const h = (v: string) => new Headers({ 'retry-after': v });
    expect(retryAfterSeconds(h('7'), now)).toBe(7);
    expect(retryAfterSeconds(h('Wed, 21 Oct 2026 07:28:30 GMT'), now)).toBe(30);
    expect(retryAfterSeconds(h('Wed, 21 Oct 2026 07:27:00 GMT'), now)).toBe(0);
    expect(retryAfterSeconds(h('soon'), now)).toBeUndefined();
    expect(retryAfterSeconds(new Headers(), now)).toBeUndefined();
  });
});

describe('timeouts are not retried', () => {
  test('one attempt, then TimeoutError: timeoutMs bounds the call, the slow server gets the work once', async () => {
    const impatient = new PlatformClient({
      apiKey: KEY,
      baseUrl: t.server.url,
      inferenceUrl: `${t.server.url}/infer`,
      timeoutMs: 150,
      maxRetries: 2,
      retryBaseMs: 5,
    });
    t.server.script('POST /infer/shapes/2', { delayMs: 600, json: payload });
    // A TimeoutError, not the payload the server sends after 600 ms: timeoutMs bounded the call.
    expect(await errorOf(impatient.segmentHosted('shapes', 2, new Uint8Array([1, 2, 3])))).toBeInstanceOf(TimeoutError);
    expect(t.server.requests).toHaveLength(1);
  });
});

import { inspect } from 'node:util';
import { describe, expect, test } from 'vitest';
import {
  AbortedError,
  AuthenticationError,
  ConnectionError,
  InvalidRequestError,
  InvalidResponseError,
  NotFoundError,
  PaymentRequiredError,
  PlatformClient,
  PlatformError,
  RateLimitError,
  ServerError,
  TimeoutError,
  isPlatformError,
} from '../../../src/platform/index.js';
import { buildPayload } from '../../../src/payload/index.js';
import { formOf } from '../../fixtures/platform-test-server.js';
import { regionMask } from '../../helpers/masks.js';
import { errorOf, TEST_KEY, usePlatformTestServer } from '../../helpers/platform-client.js';

const t = usePlatformTestServer();
const KEY = TEST_KEY;

describe('catalog routes', () => {
  test("each route sends what the platform's Python SDK sends, with the key as the api_key query parameter only", async () => {
    t.server.script('POST /', { json: { welcome: 'hi', instructions: 'ok', docs: 'd', workspace: 'ws' } });
    t.server.script('GET /ws', { json: { workspace: { name: 'WS', url: 'ws', members: 1, projects: [] } } });
    t.server.script('GET /ws/shapes', { json: { workspace: {}, project: { id: 'ws/shapes' }, versions: [] } });
    t.server.script('GET /ws/shapes/2', { json: { workspace: {}, project: {}, version: { id: 'ws/shapes/2' } } });
    t.server.script('GET /ws/shapes/2/png-mask-semantic', { json: { export: { link: 'http://x/zip' } } });
    t.server.script('GET /ort/shapes/2', { json: { ort: { classes: ['background'], model: 'm', environment: 'e' } } });
    expect((await t.client.root()).workspace).toBe('ws');
    expect((await t.client.workspace('ws')).workspace.url).toBe('ws');
    expect((await t.client.project('ws', 'shapes')).project.id).toBe('ws/shapes');
    expect((await t.client.version('ws', 'shapes', 2)).version.id).toBe('ws/shapes/2');
    expect(await t.client.exportFormat('ws', 'shapes', '2', 'png-mask-semantic')).toEqual({ export: { link: 'http://x/zip' } });
    expect((await t.client.ort('shapes', 2)).ort.classes).toEqual(['background']);
    // The SDK checks a key with POST / and asks for an export with nocache=true.
    expect(t.server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /',
      'GET /ws',
      'GET /ws/shapes',
      'GET /ws/shapes/2',
      'GET /ws/shapes/2/png-mask-semantic',
      'GET /ort/shapes/2',
    ]);
    expect(t.server.requests[4]!.query.get('nocache')).toBe('true');
    expect(t.server.requests[0]!.body).toBe('');
    for (const r of t.server.requests) {
      expect(r.query.get('api_key')).toBe(KEY);
      expect(JSON.stringify(r.headers)).not.toContain(KEY);
    }
  });

  test("an export still being built (the platform's 202 { progress }) is { ready: false, progress }", async () => {
    t.server.script(
      'GET /ws/shapes/2/coco-segmentation',
      { status: 202, json: { progress: 0.25 } },
      { json: { export: { link: 'http://x/zip', format: 'coco-segmentation' } } },
    );
    expect(await t.client.exportFormat('ws', 'shapes', 2, 'coco-segmentation')).toEqual({ ready: false, progress: 0.25 });
    expect(await t.client.exportFormat('ws', 'shapes', 2, 'coco-segmentation')).toEqual({
      export: { link: 'http://x/zip', format: 'coco-segmentation' },
    });
    t.server.script('GET /ws/shapes/2/coco-segmentation', { json: { export: {} } });
    expect(await errorOf(t.client.exportFormat('ws', 'shapes', 2, 'coco-segmentation'))).toBeInstanceOf(InvalidResponseError);
  });

  test('path segments are encoded, and names that could escape the path are refused before sending', async () => {
    t.server.script('GET /my%20ws', { json: { workspace: {} } });
    await t.client.workspace('my ws');
    expect(t.server.requests[0]!.path).toBe('/my%20ws');
    for (const bad of ['', '..']) expect(await errorOf(t.client.workspace(bad))).toBeInstanceOf(InvalidRequestError);
    expect(await errorOf(t.client.version('ws', 'p', 'latest'))).toBeInstanceOf(InvalidRequestError);
    expect(t.server.requests).toHaveLength(1);
  });
});

describe('one mapping from HTTP answers to errors, for every body shape', () => {
  const cases: [number, unknown, new (...a: never[]) => PlatformError, string, string | undefined][] = [
    [
      401,
      { error: { message: 'This API key does not exist', type: 'OAuthException', hint: 'check the key' } },
      AuthenticationError,
      'This API key does not exist',
      'OAuthException',
    ],
    [403, { error: 'Forbidden here' }, AuthenticationError, 'Forbidden here', undefined],
    [
      404,
      { error: { message: 'Unsupported get request', type: 'GraphMethodException' } },
      AuthenticationError,
      'Unsupported get request',
      'GraphMethodException',
    ],
    [404, { error: 'not_found', message: 'No such project' }, NotFoundError, 'No such project', 'not_found'],
    [400, { message: 'limit out of range' }, InvalidRequestError, 'limit out of range', undefined],
    [
      422,
      { detail: [{ loc: ['body', 'limit'], msg: 'value is not a valid integer' }] },
      InvalidRequestError,
      'body.limit: value is not a valid integer',
      'ValidationError',
    ],
    [402, { error: { message: 'Upgrade your plan' } }, PaymentRequiredError, 'Upgrade your plan', undefined],
    [423, { message: 'locked' }, PaymentRequiredError, 'locked', undefined],
    [500, '<html>Internal Server Error</html>', ServerError, '<html>Internal Server Error</html>', undefined],
    [409, { detail: 'conflict' }, PlatformError, 'conflict', undefined],
  ];
  for (const [status, body, cls, message, type] of cases) {
    test(`${status} ${JSON.stringify(body).slice(0, 60)}`, async () => {
      t.server.script(
        'GET /ws',
        typeof body === 'string' ? { status, text: body, headers: { 'content-type': 'text/html' } } : { status, json: body },
      );
      const e = await errorOf(t.client.workspace('ws'));
      expect(e).toBeInstanceOf(cls);
      expect(e.status).toBe(status);
      expect(e.message).toContain(message);
      expect(e.type).toBe(type);
      expect(isPlatformError(e)).toBe(true);
    });
  }

  test('{error: {message, type, hint}}: the hint is kept on the error and shown in its message', async () => {
    t.server.script('GET /ws', {
      status: 401,
      json: {
        error: { message: 'This API key does not exist', type: 'OAuthException', hint: 'Find your key at app.roboflow.com/settings/api' },
      },
    });
    const e = await errorOf(t.client.workspace('ws'));
    expect(e).toBeInstanceOf(AuthenticationError);
    expect([e.type, e.hint]).toEqual(['OAuthException', 'Find your key at app.roboflow.com/settings/api']);
    expect(e.message).toContain('This API key does not exist (Find your key at app.roboflow.com/settings/api)');
    expect(e.toJSON().hint).toBe('Find your key at app.roboflow.com/settings/api');
    // Shapes without a hint leave it undefined rather than inventing one.
    t.server.script('GET /ws', { status: 400, json: { message: 'limit out of range' } });
    expect((await errorOf(t.client.workspace('ws'))).hint).toBeUndefined();
  });

  test('malformed JSON in a 200 answer is an InvalidResponseError', async () => {
    t.server.script('GET /ws', { text: '{"workspace": ', headers: { 'content-type': 'application/json' } });
    expect(await errorOf(t.client.workspace('ws'))).toBeInstanceOf(InvalidResponseError);
  });

  test('429 carries retryAfter', async () => {
    const limited = new PlatformClient({ apiKey: KEY, baseUrl: t.server.url, maxRetries: 0 });
    t.server.script('GET /ws', { status: 429, json: { message: 'slow down' }, headers: { 'retry-after': '7' } });
    const e = await errorOf(limited.workspace('ws'));
    expect(e).toBeInstanceOf(RateLimitError);
    expect((e as RateLimitError).retryAfter).toBe(7);
    expect(e.code).toBe('RATE_LIMITED');
  });
});

describe('retries', () => {
  test.each([429, 502, 503, 504])('%i then 200: retried, and succeeds', async (status) => {
    t.server.script('GET /ws', { status, json: { message: 'busy' } }, { json: { workspace: { url: 'ws' } } });
    expect((await t.client.workspace('ws')).workspace.url).toBe('ws');
    expect(t.server.requests).toHaveLength(2);
  });

  test('a dropped connection is retried', async () => {
    t.server.script('GET /ws', { drop: true }, { json: { workspace: { url: 'ws' } } });
    expect((await t.client.workspace('ws')).workspace.url).toBe('ws');
    expect(t.server.requests).toHaveLength(2);
  });

  test('gives up after maxRetries with the last error', async () => {
    t.server.script('GET /ws', { status: 503, json: { message: 'down' } });
    expect(await errorOf(t.client.workspace('ws'))).toBeInstanceOf(ServerError);
    expect(t.server.requests).toHaveLength(3);
  });

  test.each([400, 401, 404, 500])('%i is not retried', async (status) => {
    t.server.script('GET /ws', { status, json: { message: 'no' } });
    await errorOf(t.client.workspace('ws'));
    expect(t.server.requests).toHaveLength(1);
  });

  test('Retry-After is honoured: the second request waits for it', async () => {
    t.server.script('GET /ws', { status: 429, json: {}, headers: { 'retry-after': '1' } }, { json: { workspace: {} } });
    await t.client.workspace('ws');
    expect(t.server.requests[1]!.at - t.server.requests[0]!.at).toBeGreaterThanOrEqual(950);
  });

  test('synthetic images are never retried: each call costs money', async () => {
    t.server.script('POST /synthetic-image', { status: 503, json: { message: 'down' } });
    expect(await errorOf(t.client.generateSyntheticImage({ prompt: 'a red circle' }))).toBeInstanceOf(ServerError);
    expect(t.server.requests).toHaveLength(1);
  });
});

describe('timeouts and aborts', () => {
  test('no answer within timeoutMs is a TimeoutError', async () => {
    const impatient = new PlatformClient({ apiKey: KEY, baseUrl: t.server.url, timeoutMs: 100, maxRetries: 0 });
    t.server.script('GET /ws', { delayMs: 1000, json: {} });
    expect(await errorOf(impatient.workspace('ws'))).toBeInstanceOf(TimeoutError);
  });

  test('an abort rejects with AbortedError, and the client keeps working', async () => {
    t.server.script('GET /ws', { delayMs: 500, json: { workspace: {} } });
    const controller = new AbortController();
    const pending = t.client.workspace('ws', { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect(await errorOf(pending)).toBeInstanceOf(AbortedError);
    expect(await errorOf(t.client.workspace('ws', { signal: AbortSignal.abort() }))).toBeInstanceOf(AbortedError);
    t.server.script('GET /ws', { json: { workspace: { url: 'ok' } } });
    expect((await t.client.workspace('ws')).workspace.url).toBe('ok');
  });

  test('a refused connection is a ConnectionError', async () => {
    const dead = new PlatformClient({ apiKey: KEY, baseUrl: 'http://127.0.0.1:9', maxRetries: 0 });
    expect(await errorOf(dead.root())).toBeInstanceOf(ConnectionError);
  });
});

describe('the API key never shows', () => {
  test('not in messages, error.url, JSON or inspection — even when the server echoes it', async () => {
    t.server.script('GET /ws', { status: 401, json: { error: { message: `bad key ${KEY} for /ws?api_key=${KEY}` } } });
    const e = await errorOf(t.client.workspace('ws'));
    for (const text of [e.message, String(e.url), JSON.stringify(e), String(e), inspect(e), e.stack ?? '']) expect(text).not.toContain(KEY);
    expect(e.url).toContain('api_key=***');
    for (const text of [JSON.stringify(t.client), String(t.client), inspect(t.client)]) expect(text).not.toContain(KEY);
  });

  test('nor in connection and timeout errors', async () => {
    const dead = new PlatformClient({ apiKey: KEY, baseUrl: 'http://127.0.0.1:9', maxRetries: 0 });
    const e = await errorOf(dead.root());
    expect(`${e.message} ${e.url} ${JSON.stringify(e)}`).not.toContain(KEY);
  });
});

describe('search', () => {
  test("sends the query with the platform's field names, as given", async () => {
    t.server.script('POST /ws/shapes/search', { json: { offset: 0, total: 0, results: [] } });
    const query = {
      prompt: 'red star',
      like_image: 'img1',
      tag: 'crowded',
      class_name: 'star',
      in_dataset: true,
      batch: true,
      batch_id: 'b1',
      fields: ['id', 'tags'] as ('id' | 'tags')[],
      limit: 10,
      offset: 20,
    };
    await t.client.search('ws', 'shapes', query);
    expect(JSON.parse(t.server.requests[0]!.body)).toEqual(query);
    await t.client.search('ws', 'shapes', { in_dataset: 'true' });
    expect(JSON.parse(t.server.requests[1]!.body)).toEqual({ in_dataset: 'true' });
  });

  test.each([[{ limit: 0 }], [{ limit: 251 }], [{ limit: 2.5 }], [{ offset: -1 }], [{ fields: ['id', 'password'] }], [{ in_dataset: 3 }]])(
    '%j is refused before sending',
    async (q) => {
      expect(await errorOf(t.client.search('ws', 'shapes', q as never))).toBeInstanceOf(InvalidRequestError);
      expect(t.server.requests).toHaveLength(0);
    },
  );

  test('searchAll advances offset by limit and stops at total', async () => {
    const page = (offset: number, n: number) => ({
      json: { offset, total: 7, results: Array.from({ length: n }, (_, i) => ({ id: `i${offset + i}` })) },
    });
    t.server.script('POST /ws/shapes/search', page(0, 3), page(3, 3), page(6, 1));
    const pages = [];
    for await (const p of t.client.searchAll('ws', 'shapes', { limit: 3, tag: 't' })) pages.push(p);
    expect(pages.map((p) => p.results.map((r) => r.id))).toEqual([['i0', 'i1', 'i2'], ['i3', 'i4', 'i5'], ['i6']]);
    expect(t.server.requests.map((r) => JSON.parse(r.body) as unknown)).toEqual(
      [0, 3, 6].map((offset) => ({ limit: 3, tag: 't', offset })),
    );
  });

  test('searchAll stops on a short page even when total says more', async () => {
    t.server.script('POST /ws/shapes/search', { json: { offset: 0, total: 100, results: [{ id: 'a' }] } });
    const pages = [];
    for await (const p of t.client.searchAll('ws', 'shapes', { limit: 5 })) pages.push(p);
    expect(pages).toHaveLength(1);
  });

  test.each([
    ['no results', { offset: 0, total: 3 }],
    ['results that are not an array', { offset: 0, total: 3, results: { id: 'a' } }],
    ['a total that is not a number', { offset: 0, total: 'many', results: [] }],
  ])('a page with %s is an InvalidResponseError with url and status, not a TypeError', async (_name, body) => {
    t.server.script('POST /ws/shapes/search', { json: body });
    const consume = async () => {
      for await (const p of t.client.searchAll('ws', 'shapes', { limit: 2 })) void p;
    };
    const e = await errorOf(consume());
    expect(e).toBeInstanceOf(InvalidResponseError);
    expect(e).toBeInstanceOf(PlatformError);
    expect([e.code, e.status, e.method]).toEqual(['INVALID_RESPONSE', 200, 'POST']);
    expect(e.url).toBe(`${t.server.url}/ws/shapes/search?api_key=***`);
    expect(e.body).toEqual(body);
    expect(t.server.requests).toHaveLength(1);
  });

  test('a page without total pages on until a short page', async () => {
    const page = (ids: string[]) => ({ json: { offset: 0, results: ids.map((id) => ({ id })) } });
    t.server.script('POST /ws/shapes/search', page(['a', 'b']), page(['c']));
    const ids: string[] = [];
    for await (const p of t.client.searchAll('ws', 'shapes', { limit: 2 })) ids.push(...p.results.map((r) => r.id));
    expect(ids).toEqual(['a', 'b', 'c']);
  });

  test('searchAll stops exactly at total on full pages', async () => {
    t.server.script('POST /ws/shapes/search', { json: { offset: 0, total: 2, results: [{ id: 'a' }, { id: 'b' }] } });
    const pages = [];
    for await (const p of t.client.searchAll('ws', 'shapes', { limit: 2 })) pages.push(p);
    expect(pages).toHaveLength(1);
  });
});

describe('synthetic images', () => {
  test('sends only what the caller gave: the platform owns the defaults', async () => {
    t.server.script('POST /synthetic-image', { json: { prompt: 'p', images: [] } });
    await t.client.generateSyntheticImage({ prompt: 'a blue star', project_url: 'shapes' });
    expect(JSON.parse(t.server.requests[0]!.body)).toEqual({ prompt: 'a blue star', project_url: 'shapes' });
  });

  test('bytes are sent as base64 with image_type base64', async () => {
    t.server.script('POST /synthetic-image', { json: { prompt: 'p', images: [] } });
    await t.client.generateSyntheticImage({ prompt: 'like this', image: new Uint8Array([1, 2, 3, 250]), style: 'vivid', n: 2 });
    expect(JSON.parse(t.server.requests[0]!.body)).toEqual({
      prompt: 'like this',
      image: 'AQID+g==',
      image_type: 'base64',
      style: 'vivid',
      n: 2,
    });
  });

  test.each([
    [{ prompt: 'x', image: 'abc' }],
    [{ prompt: 'x', image: 'abc', image_type: 'file' }],
    [{ prompt: 'x', image: new Uint8Array(2), image_type: 'url' }],
    [{ prompt: 'x', image_type: 'id' }],
    [{ prompt: '' }],
  ])('%j is refused before sending', async (req) => {
    expect(await errorOf(t.client.generateSyntheticImage(req as never))).toBeInstanceOf(InvalidRequestError);
    expect(t.server.requests).toHaveLength(0);
  });
});

describe('hosted segmentation', () => {
  const raw = { classIds: regionMask(30, 20, 3), width: 30, height: 20, class_map: { '0': 'background', '1': 'circle', '2': 'star' } };
  const payload = buildPayload(raw);

  test('a URL goes in the image query parameter, encoded', async () => {
    t.server.script('POST /infer/shapes/2', { json: payload });
    const url = 'https://example.com/a b.jpg?x=1&y=2';
    expect(await t.client.segmentHosted('shapes', 2, url, { confidence: 40 })).toEqual(payload);
    const r = t.server.requests[0]!;
    expect(r.query.get('image')).toBe(url);
    expect(r.query.get('confidence')).toBe('40');
    expect(r.body).toBe('');
  });

  test("bytes go as the multipart `file` part the platform's Python SDK sends, and a nested answer comes back flat", async () => {
    t.server.script('POST /infer/shapes/2', {
      json: { predictions: { ...payload, confidence_mask: 'x', present_class_ids: [0, 1] }, image: payload.image },
    });
    const bytes = new Uint8Array([255, 216, 255, 224, 1, 2, 3]);
    expect(await t.client.segmentHosted('shapes', 2, bytes)).toEqual(payload);
    const r = t.server.requests[0]!;
    expect(r.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const form = await formOf(r);
    expect([...form.keys()]).toEqual(['file']);
    const file = form.get('file') as File;
    expect([file.name, file.type]).toEqual(['imageToUpload', 'image/jpeg']);
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(bytes);
    expect(r.query.get('confidence')).toBe('50');
    // Bytes of unknown format are sent as they are.
    await t.client.segmentHosted('shapes', 2, new Uint8Array([1, 2, 3]));
    const other = await formOf(t.server.requests[1]!);
    expect((other.get('file') as File).type).toBe('application/octet-stream');
  });

  test.each([
    ['both a URL and bytes', { url: 'https://x/y.jpg', bytes: new Uint8Array(1) }, {}],
    ['a string that is not a URL', 'not a url', {}],
    ['a confidence out of range', 'https://x/y.jpg', { confidence: 120 }],
    ['a NaN confidence', 'https://x/y.jpg', { confidence: Number.NaN }],
  ])('%s is refused before sending', async (_name, image, options) => {
    expect(await errorOf(t.client.segmentHosted('shapes', 2, image as never, options))).toBeInstanceOf(InvalidRequestError);
    expect(t.server.requests).toHaveLength(0);
  });

  test('an answer whose mask does not match its image size is an InvalidResponseError with url and status', async () => {
    const body = { ...payload, image: { width: 31, height: 20 } };
    t.server.script('POST /infer/shapes/2', { json: body });
    const e = await errorOf(t.client.segmentHosted('shapes', 2, 'https://x/y.jpg', { confidence: 40 }));
    expect(e).toBeInstanceOf(InvalidResponseError);
    expect([e.code, e.status, e.method]).toEqual(['INVALID_RESPONSE', 200, 'POST']);
    expect(e.url).toBe(`${t.server.url}/infer/shapes/2?confidence=40&image=${encodeURIComponent('https://x/y.jpg')}&api_key=***`);
    expect(e.message).toContain(`${t.server.url}/infer/shapes/2?`);
    expect(e.body).toEqual(body);
    // Why the payload was refused comes along as the cause.
    expect((e.cause as { code?: string }).code).toBe('PAYLOAD_INVALID');
    expect(`${e.message} ${JSON.stringify(e)}`).not.toContain(KEY);
  });
});

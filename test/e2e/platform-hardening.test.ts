// The local platform against a hostile web page and hostile input: its key, the Host and Origin checks,
// number checks, and bad input that must be a clear 4xx (or 504) while the server keeps serving.
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { PlatformClient } from '../../src/platform/index.js';
import { openPlatform, startPlatformServer, type PlatformServer, type PlatformState } from '../../server/index.js';
import { ROOT, TINY } from '../helpers/paths.js';
import { parseJson, readJsonFile } from '../helpers/json.js';
import { rawHttp, rawSocket, type RawRequest } from '../helpers/raw-http.js';

const WS = 'edgeseg-demo';
const SAMPLE_PNG = join(ROOT, 'test', 'fixtures', 'images', 'sample.png');
const PROJECT = 'shapes';
/** Short limits, so that every timeout below fires in well under a second. */
const HEADERS_TIMEOUT_MS = 300;
const REQUEST_TIMEOUT_MS = 800;
const FETCH_TIMEOUT_MS = 400;

let dir: string;
let server: PlatformServer;
let client: PlatformClient;
let origin: Server;
let originUrl: string;
const held: ServerResponse[] = [];
/** The server's request log. */
const logged: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'edgeseg-hardening-'));
  server = await startPlatformServer({
    port: 0,
    dataDir: join(dir, 'main'),
    modelDir: TINY('tiny-legacy'),
    allowOrigins: ['https://app.example'],
    headersTimeoutMs: HEADERS_TIMEOUT_MS,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    limits: { fetchTimeoutMs: FETCH_TIMEOUT_MS },
    log: (line) => logged.push(line),
  });
  client = new PlatformClient({ apiKey: server.apiKey, baseUrl: server.baseUrl, inferenceUrl: server.inferenceUrl, maxRetries: 0 });
  // Image URLs that misbehave: a trickle of one byte a second, 400 MB, a redirect loop.
  origin = createServer((req, res) => {
    if (req.url === '/trickle') {
      res.writeHead(200, { 'content-type': 'image/png' });
      const timer = setInterval(() => res.write('x'), 1000);
      res.on('close', () => clearInterval(timer));
      held.push(res);
    } else if (req.url === '/huge') {
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      const chunk = Buffer.alloc(1 << 16, 0xab);
      let sent = 0;
      const pump = () => {
        while (sent < 400 * 2 ** 20 && !res.destroyed) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    } else if (req.url === '/loop') res.writeHead(302, { location: '/loop' }).end();
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of held) res.destroy();
  origin.closeAllConnections();
  await new Promise<void>((resolve) => origin.close(() => resolve()));
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const withKey = (path: string) => `${path}${path.includes('?') ? '&' : '?'}api_key=${server.apiKey}`;
const send = (r: RawRequest) => rawHttp(server.baseUrl, r);
/** The error of a JSON error answer. */
const errorOf = (body: string) => (JSON.parse(body) as { error: { code: string; message: string; field?: string } }).error;
const stillServing = async () => expect((await client.root()).workspace).toBe(WS);

describe('the key', () => {
  test('each new data directory gets its own random key (192 bits), kept in the directory', async () => {
    const keys = [server.apiKey];
    for (const name of ['other']) {
      const p = await openPlatform({ dataDir: join(dir, name), modelDir: TINY('tiny-legacy') });
      keys.push(p.apiKey);
      expect((await readJsonFile<PlatformState>(join(dir, name, 'platform.json'))).workspaces[0]!.apiKey).toBe(p.apiKey);
      // Opened again: the same key.
      const again = await openPlatform({ dataDir: join(dir, name), modelDir: TINY('tiny-legacy') });
      expect(again.apiKey).toBe(p.apiKey);
      await Promise.all([p.handler.close(), again.handler.close()]);
    }
    for (const key of keys) expect(key).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(new Set(keys).size).toBe(2);
  });

  test("the data directory is its owner's alone (directories 0700, platform.json and signing-key 0600), and repaired when found readable by others", async () => {
    const data = join(dir, 'modes');
    const modeOf = async (path: string) => (await stat(path)).mode & 0o777;
    const dirs = async () => [data, ...(await readdir(data, { recursive: true })).map((n) => join(data, n))];
    const expectTight = async () => {
      expect(await modeOf(join(data, 'platform.json'))).toBe(0o600);
      expect(await modeOf(join(data, 'signing-key'))).toBe(0o600);
      for (const path of await dirs()) if ((await stat(path)).isDirectory()) expect([path, await modeOf(path)]).toEqual([path, 0o700]);
    };
    const first = await startPlatformServer({ port: 0, dataDir: data, modelDir: TINY('tiny-legacy') });
    await first.close();
    await expectTight();
    // As an earlier version left it, or a user's chmod: readable by all.
    for (const path of await dirs()) await chmod(path, (await stat(path)).isDirectory() ? 0o755 : 0o644);
    const again = await startPlatformServer({ port: 0, dataDir: data, modelDir: TINY('tiny-legacy') });
    try {
      await expectTight();
      // A write of the state keeps it so.
      const put = await fetch(`${again.baseUrl}/${WS}/settings?api_key=${again.apiKey}`, { method: 'PUT', body: '{"captionModel":"m"}' });
      expect(put.status).toBe(200);
      await expectTight();
    } finally {
      await again.close();
    }
  });

  test('under npm start, /api/local-key hands the key to pages of the same origin only', async () => {
    const mounted = await openPlatform({
      dataDir: join(dir, 'main'),
      prefix: '/api',
      shareKeyWithPages: true,
      modelDir: TINY('tiny-legacy'),
    });
    const http = createServer((req, res) => mounted.handler(req, res));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    try {
      const ask = (headers: Record<string, string>) => rawHttp(base, { path: '/api/local-key', headers });
      const same = await ask({ 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' });
      expect(same.status).toBe(200);
      expect(JSON.parse(same.body)).toEqual({ apiKey: server.apiKey, workspace: WS });
      expect(same.headers['cache-control']).toBe('no-store');
      expect(same.headers['access-control-allow-origin']).toBeUndefined();
      // A page elsewhere, even on another loopback port (which the other routes grant CORS), is refused.
      for (const headers of <Record<string, string>[]>[
        { 'sec-fetch-site': 'cross-site', origin: 'https://attacker.example' },
        { 'sec-fetch-site': 'same-site', origin: 'http://localhost:9999' },
        { origin: 'http://127.0.0.1:1' },
      ]) {
        const r = await ask(headers);
        expect(r.status, JSON.stringify(headers)).toBe(403);
        expect(errorOf(r.body).code).toBe('OriginNotAllowed');
        expect(r.body).not.toContain(server.apiKey);
      }
      // A rebound name (the page thinks it is same-origin) is refused by the Host check.
      const rebound = await ask({ host: `attacker.example:${new URL(base).port}`, 'sec-fetch-site': 'same-origin' });
      expect([rebound.status, errorOf(rebound.body).code]).toEqual([403, 'HostNotAllowed']);
      expect(rebound.body).not.toContain(server.apiKey);
    } finally {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await mounted.handler.close();
    }
    // `edgeseg serve` serves no page, and has no such route.
    expect((await send({ path: '/local-key' })).status).toBe(404);
  });
});

describe('hosts and origins', () => {
  test('a request whose Host is not this server is refused, file routes included (DNS rebinding)', async () => {
    const { port } = new URL(server.baseUrl);
    const { image } = await client.image(WS, PROJECT, (await client.search(WS, PROJECT, { limit: 1 })).results[0]!.id);
    const file = new URL(image.urls.original);
    for (const host of [
      `attacker.example:${port}`,
      'attacker.example',
      `0.0.0.0:${port}`,
      `localhost.attacker.example:${port}`,
      `127.0.0.1@attacker.example:${port}`,
      null,
    ]) {
      for (const path of [withKey(`/${WS}`), withKey('/'), file.pathname + file.search]) {
        const r = await send({ path, headers: { host } });
        expect(r.status, `${host} ${path}`).toBe(403);
        expect(errorOf(r.body).code).toBe('HostNotAllowed');
        expect(r.headers['access-control-allow-origin']).toBeUndefined();
      }
    }
    // Refusals are logged, the key masked.
    expect(logged).toContainEqual(expect.stringMatching(new RegExp(`^GET /${WS}\\?api_key=\\*\\*\\* 403 `)));
    expect(logged.join('\n')).not.toContain(server.apiKey);
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `LOCALHOST:${port}`,
      `app.localhost:${port}`,
      `127.1.2.3:${port}`,
      `[::1]:${port}`,
    ]) {
      expect((await send({ path: withKey('/'), headers: { host } })).status, host).toBe(200);
    }
  });

  test("a configured public URL's host is answered, and links name it", async () => {
    const p = await startPlatformServer({
      port: 0,
      dataDir: join(dir, 'main'),
      modelDir: TINY('tiny-legacy'),
      publicUrl: 'https://seg.example/base',
    });
    try {
      const r = await rawHttp(p.baseUrl, {
        path: `/${WS}/${PROJECT}/images/${(await client.search(WS, PROJECT, { limit: 1 })).results[0]!.id}?api_key=${p.apiKey}`,
        headers: { host: 'seg.example' },
      });
      expect(r.status).toBe(200);
      expect(parseJson<{ image: { urls: { original: string } } }>(r.body).image.urls.original).toMatch(
        /^https:\/\/seg\.example\/base\/image-files\//,
      );
      expect((await rawHttp(p.baseUrl, { path: `/?api_key=${p.apiKey}`, headers: { host: 'other.example' } })).status).toBe(403);
    } finally {
      await p.close();
    }
  });

  test("--allow-origin origins are granted; a foreign page's simple POST is refused even with the key", async () => {
    const granted = await send({
      method: 'OPTIONS',
      path: `/${WS}/settings`,
      headers: { origin: 'https://app.example', 'access-control-request-method': 'PUT' },
    });
    expect(granted.status).toBe(204);
    expect(granted.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(granted.headers['access-control-allow-methods']).toContain('PUT');
    // The key is a query parameter: no page needs to send an Authorization header.
    expect(granted.headers['access-control-allow-headers']).toBe('content-type');
    const before = await send({ path: withKey(`/${WS}/settings`) });
    // The old exfiltration path: point the provider at another host, so the next call sends it the key.
    const attack = await send({
      method: 'POST',
      path: withKey(`/${WS}/settings`),
      headers: { origin: 'https://attacker.example', 'content-type': 'text/plain' },
      body: '{"providerBaseUrl": "https://attacker.example/v1"}',
    });
    expect([attack.status, errorOf(attack.body).code]).toEqual([403, 'OriginNotAllowed']);
    expect((await send({ path: withKey(`/${WS}/settings`) })).body).toBe(before.body);
    // Signed file URLs stay readable from any origin (the signature is the credential).
    const { image } = await client.image(WS, PROJECT, (await client.search(WS, PROJECT, { limit: 1 })).results[0]!.id);
    const file = new URL(image.urls.original);
    const r = await send({ path: file.pathname + file.search, headers: { origin: 'https://attacker.example' } });
    expect(r.status).toBe(200);
    expect(r.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('numbers', () => {
  test('every numeric field and parameter is a safe integer (or number) in range, else a 400 naming it', async () => {
    const search = (body: string) => send({ method: 'POST', path: withKey(`/${WS}/${PROJECT}/search`), body });
    const cases: [string, Promise<{ status: number; body: string }>, string][] = [
      ['offset 1e30', search('{"offset": 1e30}'), 'offset'],
      ['offset 1e400 (Infinity)', search('{"offset": 1e400}'), 'offset'],
      ['offset -1', search('{"offset": -1}'), 'offset'],
      ['offset 1.5', search('{"offset": 1.5}'), 'offset'],
      ['offset "3"', search('{"offset": "3"}'), 'offset'],
      ['offset 2^53', search('{"offset": 9007199254740992}'), 'offset'],
      ['limit 0', search('{"limit": 0}'), 'limit'],
      ['limit 251', search('{"limit": 251}'), 'limit'],
      ['limit -0.5', search('{"limit": -0.5}'), 'limit'],
      ['n 1e30', send({ method: 'POST', path: withKey('/synthetic-image'), body: '{"prompt": "x", "n": 1e30}' }), 'n'],
      ['version 2^70', send({ path: withKey(`/${WS}/${PROJECT}/1180591620717411303424`) }), 'version'],
    ];
    for (const [name, answer, field] of cases) {
      const r = await answer;
      expect(r.status, name).toBe(400);
      expect(errorOf(r.body), name).toMatchObject({ code: 'ValidationError', field });
      expect(errorOf(r.body).message, name).toContain(field);
    }
    for (const confidence of ['1e400', 'NaN', '', '50abc', '-1', '100.5', 'Infinity', '0x10', ' 1e1 ', '0b1', '+5', '5.', '.5', ' 50']) {
      const r = await send({
        method: 'POST',
        path: withKey(`/infer/${PROJECT}/2?confidence=${encodeURIComponent(confidence)}`),
        body: 'aGVsbG8=',
      });
      expect(r.status, confidence).toBe(400);
      expect(errorOf(r.body)).toMatchObject({ code: 'ValidationError', field: 'confidence' });
    }
    // As JSON writes numbers, and as clients print them.
    for (const confidence of ['0', '37.5', '1e1', '1e-7', '100']) {
      const r = await send({
        method: 'POST',
        path: withKey(`/infer/${PROJECT}/2?confidence=${encodeURIComponent(confidence)}`),
        body: Buffer.from(await readFile(SAMPLE_PNG)).toString('base64'),
      });
      expect(r.status, confidence).toBe(200);
    }
    // Where the number is good, the answer echoes it as a number.
    const ok = await search('{"offset": 70, "limit": 250}');
    expect(JSON.parse(ok.body)).toMatchObject({ offset: 70, total: 72 });
  });
});

describe('bad input: each a clear 4xx (or 504), and the server keeps serving', () => {
  test('JSON that is not UTF-8, nested 100,000 deep, or carries a 100 KB prompt', async () => {
    const search = (body: string | Uint8Array) => send({ method: 'POST', path: withKey(`/${WS}/${PROJECT}/search`), body });
    const latin1 = await search(Buffer.from([0x7b, 0x22, 0x74, 0x61, 0x67, 0x22, 0x3a, 0x22, 0xe9, 0xff, 0x22, 0x7d])); // {"tag":"\xe9\xff"}
    expect([latin1.status, errorOf(latin1.body).message]).toEqual([400, 'the request body is not UTF-8 text']);
    const deep = await search(`{"tag": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    expect([deep.status, errorOf(deep.body).code]).toEqual([400, 'ValidationError']);
    expect(errorOf(deep.body).message).toContain('nests deeper than 32');
    // Brackets inside strings are text, not nesting.
    expect((await search(JSON.stringify({ tag: '['.repeat(100) }))).status).toBe(200);
    const prompt = 'a red circle '.repeat(8000); // 104 KB
    const longSearch = await search(JSON.stringify({ prompt }));
    expect([longSearch.status, errorOf(longSearch.body).field]).toEqual([400, 'prompt']);
    const longSynthetic = await send({ method: 'POST', path: withKey('/synthetic-image'), body: JSON.stringify({ prompt }) });
    expect([longSynthetic.status, errorOf(longSynthetic.body).field]).toEqual([400, 'prompt']);
    expect(errorOf(longSynthetic.body).message).toBe(`prompt is ${prompt.length} characters; the limit is 4000`);
    await stillServing();
  });

  test('another method on a workspace, a project or an image is 405 MethodNotAllowed (a project once answered 500)', async () => {
    for (const [method, path] of [
      ['POST', `/${WS}`],
      ['DELETE', `/${WS}`],
      ['POST', `/${WS}/${PROJECT}`],
      ['PUT', `/${WS}/${PROJECT}`],
      ['DELETE', `/${WS}/${PROJECT}`],
      ['POST', `/${WS}/${PROJECT}/images/anything`],
    ] as const) {
      const answer = await send({ method, path: withKey(path), body: '{}' });
      expect([method, path, answer.status, errorOf(answer.body).code, errorOf(answer.body).message]).toEqual([
        method,
        path,
        405,
        'MethodNotAllowed',
        'use GET',
      ]);
    }
    await stillServing();
  });

  test('50 connections that send half a request and wait are closed with 408; others are answered meanwhile', async () => {
    const { port } = new URL(server.baseUrl);
    const halves = [
      // Headers never finished…
      `POST ${withKey(`/${WS}/${PROJECT}/search`)} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 20\r\n`,
      // …or a body shorter than announced.
      `POST ${withKey(`/${WS}/${PROJECT}/search`)} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 20\r\n\r\n{"lim`,
    ];
    const sockets = Array.from({ length: 50 }, (_, i) => rawSocket(server.baseUrl, halves[i % 2]!));
    // Bytes that are not HTTP at all: a JSON 400 too.
    const garbage = await rawSocket(server.baseUrl, '\x16\x03\x01 not http\r\n\r\n');
    expect(garbage.status).toBe('HTTP/1.1 400 Bad Request');
    expect(errorOf(garbage.body).code).toBe('MalformedRequest');
    // While all 50 hang, a whole request is answered.
    await stillServing();
    const answers = await Promise.all(sockets);
    for (const answer of answers) {
      expect(answer.status).toBe('HTTP/1.1 408 Request Timeout');
      expect(errorOf(answer.body).code).toBe('RequestTimeout');
    }
    await stillServing();
  });

  test('image URLs: a trickle is 504, 400 MB is 413, a redirect loop and file:, ftp:, javascript:, data: are 400', async () => {
    const inferOn = (base: string, key: string) => (image: string) =>
      rawHttp(base, { method: 'POST', path: `/infer/${PROJECT}/2?image=${encodeURIComponent(image)}&api_key=${key}` });
    const infer = inferOn(server.baseUrl, server.apiKey);
    // The trickle never ends: only the (short) timeout can answer it.
    const trickle = await infer(`${originUrl}/trickle`);
    expect([trickle.status, errorOf(trickle.body).code]).toEqual([504, 'ImageFetchTimeout']);
    expect(errorOf(trickle.body).message).toBe(`fetching the image took longer than ${FETCH_TIMEOUT_MS} ms`);
    // The others on a server with a long timeout, so that no machine is too slow for the cap or the
    // redirect limit to answer first.
    const patient = await startPlatformServer({
      port: 0,
      dataDir: join(dir, 'main'),
      modelDir: TINY('tiny-legacy'),
      limits: { fetchTimeoutMs: 60_000 },
    });
    try {
      const huge = await inferOn(patient.baseUrl, patient.apiKey)(`${originUrl}/huge`);
      expect([huge.status, errorOf(huge.body).code]).toEqual([413, 'PayloadTooLarge']);
      expect(errorOf(huge.body).message).toBe('the image at the URL is over 20000000 bytes');
      const loop = await inferOn(patient.baseUrl, patient.apiKey)(`${originUrl}/loop`);
      expect([loop.status, errorOf(loop.body).code]).toEqual([400, 'ImageFetchFailed']);
    } finally {
      await patient.close();
    }
    for (const url of [
      'file:///etc/passwd',
      'ftp://127.0.0.1/x.png',
      'javascript:alert(1)',
      'data:image/png;base64,AAAA',
      'gopher://127.0.0.1:25/',
      'not a url',
    ]) {
      const r = await infer(url);
      expect(r.status, url).toBe(400);
      expect(errorOf(r.body).code).toBe('ValidationError');
    }
    // The synthetic-image route refuses the same schemes before any provider is asked.
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)']) {
      const r = await send({
        method: 'POST',
        path: withKey('/synthetic-image'),
        body: JSON.stringify({ prompt: 'x', image: url, image_type: 'url' }),
      });
      expect(r.status, url).toBe(400);
    }
    await stillServing();
  });
});

describe('second pass', () => {
  test('the request log masks the key in every spelling the server reads: encoded names and values, inside an image URL, in the path', async () => {
    const key = server.apiKey;
    const encodeAll = (text: string) => [...text].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
    const requests: [string, string, number][] = [
      ['GET', `/${WS}?api%5Fkey=${key}`, 200],
      ['GET', `/${WS}?%61pi_key=${key}`, 200],
      ['GET', `/${WS}?${encodeAll('api_key')}=${encodeAll(key)}`, 200],
      ['POST', `/infer/${PROJECT}/2?api_key=${key}&image=${encodeURIComponent(`http://127.0.0.1:1/x.png?api_key=${key}`)}`, 400],
      ['POST', `/infer/${PROJECT}/2?api%5Fkey=${key}&image=${encodeURIComponent(`http://127.0.0.1:1/x.png?api%5Fkey=${key}`)}`, 400],
      ['GET', `/${WS}/${encodeAll(key)}?api_key=${key}`, 404],
      ['GET', `/${encodeAll(key)}?token=${key}`, 401],
    ];
    const from = logged.length;
    for (const [method, path, status] of requests) expect((await send({ method, path })).status, path).toBe(status);
    await vi.waitFor(() => expect(logged.length - from).toBe(requests.length));
    const lines = logged.slice(from).join('\n');
    let decoded = lines;
    for (let i = 0; i < 3; i++) {
      try {
        decoded = decodeURIComponent(decoded);
      } catch {
        break;
      }
    }
    expect(lines).not.toContain(key);
    expect(decoded).not.toContain(key);
    expect(lines).toContain(`POST /infer/${PROJECT}/2?api_key=***&image=http%3A%2F%2F127.0.0.1%3A1%2Fx.png%3Fapi_key%3D*** 400`);
  });

  test('the signed file routes serve only regular files inside the data directory: no symbolic link out, no directory', async () => {
    const outside = join(dir, 'outside');
    await mkdir(join(outside, 'folder'), { recursive: true });
    await writeFile(join(outside, 'secret.png'), 'the secret outside');
    await writeFile(join(outside, 'folder', 'x.png'), 'the secret outside');
    const images = join(server.dataDir, 'files', WS, PROJECT, 'images');
    await symlink(join(outside, 'secret.png'), join(images, 'link.png'));
    await symlink(join(outside, 'folder'), join(server.dataDir, 'files', 'linked'));
    await mkdir(join(images, 'a-folder.png'));
    const record = (id: string, file: string) => ({
      id,
      name: `${id}.png`,
      file,
      width: 1,
      height: 1,
      split: null,
      tags: [],
      batch: null,
      created: Date.now(),
      owner: 'test',
      classes: [],
      embedding: [],
    });
    await server.store.update((s) => {
      s.workspaces[0]!.projects.find((p) => p.url === PROJECT)!.images.push(
        record('linked-file', `files/${WS}/${PROJECT}/images/link.png`),
        record('linked-folder', 'files/linked/x.png'),
        record('a-folder', `files/${WS}/${PROJECT}/images/a-folder.png`),
      );
    });
    for (const id of ['linked-file', 'linked-folder', 'a-folder']) {
      const { image } = parseJson<{ image: { urls: { original: string } } }>(
        (await send({ path: withKey(`/${WS}/${PROJECT}/images/${id}`) })).body,
      );
      const answer = await fetch(image.urls.original);
      const body = await answer.text();
      expect([id, answer.status]).toEqual([id, 404]);
      expect(body).not.toContain('the secret outside');
    }
    // A real image of the directory still comes.
    const first = server.store.state.workspaces[0]!.projects.find((p) => p.url === PROJECT)!.images[0]!;
    const { image } = parseJson<{ image: { urls: { original: string } } }>(
      (await send({ path: withKey(`/${WS}/${PROJECT}/images/${first.id}`) })).body,
    );
    expect((await fetch(image.urls.original)).status).toBe(200);
    // Taken out again: a server started on a data directory that holds links refuses it (platform-data-dir.test.ts).
    for (const planted of [join(images, 'link.png'), join(server.dataDir, 'files', 'linked'), join(images, 'a-folder.png')])
      await rm(planted, { recursive: true });
  });

  test('the workspace key is found by its digest in constant time: a near miss is as wrong as any', async () => {
    const key = server.apiKey;
    const flipped = `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
    for (const wrong of [flipped, key.slice(0, -1), `${key}x`, key.toLowerCase() === key ? key.toUpperCase() : key.toLowerCase()]) {
      expect((await send({ path: `/${WS}?api_key=${encodeURIComponent(wrong)}` })).status).toBe(401);
    }
    expect(server.store.workspaceByKey(key)?.url).toBe(WS);
    expect(server.store.workspaceByKey(flipped)).toBeUndefined();
  });
});

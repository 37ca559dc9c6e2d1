// Memory held by request bodies is bounded per key and in total: many slow, large, legal bodies at once are
// refused past the budget with 503 ServerBusy and Retry-After, while other routes and other keys are answered.
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { startPlatformServer, type PlatformServer } from '../../server/index.js';
import { parseJson, type ErrorAnswer } from '../helpers/json.js';
import { TINY } from '../helpers/paths.js';
import { rawHttp } from '../helpers/raw-http.js';

const WS = 'edgeseg-demo';
const OTHER_KEY = 'other-workspace-key-0000000000001';
const MB = 1_000_000;
/** Small budgets, so that a few dozen 2 MB bodies cross them in well under a second. */
const PER_KEY = 8 * MB;
const IN_FLIGHT = 12 * MB;
const BODY = 2 * MB;

let dir: string;
let server: PlatformServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'edgeseg-body-budget-'));
  server = await startPlatformServer({
    port: 0,
    dataDir: dir,
    modelDir: TINY('tiny-legacy'),
    limits: { maxBodyBytesPerKey: PER_KEY, maxBodyBytesInFlight: IN_FLIGHT },
  });
  await server.store.update((s) => {
    s.workspaces.push({ url: 'other', name: 'Other', apiKey: OTHER_KEY, settings: {}, captions: {}, projects: [] });
  });
});

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

interface SlowUpload {
  socket: Socket;
  /** What the server answered so far. */
  answer: () => string;
}

/**
 * A legal synthetic-image request whose JSON body is `BODY` bytes, sent but for its last byte, which never
 * comes: a client on a slow link, as far as the server can tell. Declared with Content-Length, or chunked.
 */
function slowUpload(key: string, chunked: boolean): SlowUpload {
  const { port } = new URL(server.baseUrl);
  const json = `{"prompt":"a red circle","pad":"${'x'.repeat(BODY - 34)}"}`;
  const head = [
    `POST /synthetic-image?api_key=${key} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    'Content-Type: application/json',
    chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${json.length}`,
    '',
    '',
  ].join('\r\n');
  const body = chunked ? `${json.length.toString(16)}\r\n${json.slice(0, -1)}` : json.slice(0, -1);
  let answer = '';
  const socket = connect(Number(port), '127.0.0.1', () => socket.write(head + body));
  socket.on('data', (d: Buffer) => (answer += d.toString()));
  // A refused upload may be cut off while it is still being sent.
  socket.on('error', () => {});
  return { socket, answer: () => answer };
}

const refused = (u: SlowUpload) => u.answer().startsWith('HTTP/1.1 503');
const bodyOf = (text: string) => parseJson<ErrorAnswer>(text.slice(text.indexOf('\r\n\r\n') + 4)).error;

test("40 slow 2 MB bodies of one key: those past the key's 8 MB are 503 ServerBusy with Retry-After; GETs and another key are answered; the server never holds more", async () => {
  const uploads = Array.from({ length: 40 }, (_, i) => slowUpload(server.apiKey, i % 2 === 1));
  try {
    // Four fit the key's budget (whole bodies held until the last byte comes); every other is refused.
    await vi.waitFor(() => expect(uploads.filter(refused).length).toBe(36), { timeout: 5000, interval: 20 });
    // A declared length is held whole; a chunked body as far as it came (all but its last byte).
    await vi.waitFor(() => expect(server.handler.bodies.held.bytes).toBeGreaterThanOrEqual(4 * (BODY - 1)), {
      timeout: 5000,
      interval: 20,
    });
    expect(server.handler.bodies.held.bytes).toBeLessThanOrEqual(4 * BODY);
    for (const upload of uploads.filter(refused)) {
      const text = upload.answer();
      expect(text).toMatch(/\r\nretry-after: 5\r\n/i);
      expect(bodyOf(text)).toMatchObject({ code: 'ServerBusy', type: 'ServerBusy' });
      expect(bodyOf(text).message).toMatch(/^this key's requests hold \d+\.\d MB of request bodies, and may hold 8\.0 MB at once$/);
    }
    // Meanwhile a GET of the catalog is answered, and another key's body fits the total (8 + 3.5 ≤ 12 MB).
    expect((await rawHttp(server.baseUrl, { path: `/${WS}?api_key=${server.apiKey}` })).status).toBe(200);
    const other = (size: number) =>
      rawHttp(server.baseUrl, {
        method: 'POST',
        path: `/synthetic-image?api_key=${OTHER_KEY}`,
        body: `{"prompt":"a red circle","pad":"${'x'.repeat(size)}"}`,
      });
    const fits = await other(3.5 * MB);
    // Read whole and answered: this workspace has no provider key.
    expect([fits.status, parseJson<ErrorAnswer>(fits.body).error.code]).toEqual([400, 'ProviderNotConfigured']);
    // …but not past the total: 8 MB held + 5 MB > 12 MB.
    const over = await other(5 * MB);
    expect([over.status, over.headers['retry-after'], parseJson<ErrorAnswer>(over.body).error.message]).toEqual([
      503,
      '5',
      'the server holds 8.0 MB of request bodies, and takes 12.0 MB at once',
    ]);
    // What the server held at its peak: never more than the budget (the key's 8 MB and the other's 3.5 MB).
    expect(server.handler.bodies.held.peak).toBeLessThanOrEqual(IN_FLIGHT);
    expect(server.handler.bodies.held.peak).toBeGreaterThanOrEqual(4 * (BODY - 1) + 3.5 * MB);
  } finally {
    for (const upload of uploads) upload.socket.destroy();
  }

  // The slow clients gone, their share is given back, and a large body of the same key is read again.
  await vi.waitFor(() => expect(server.handler.bodies.held).toMatchObject({ bytes: 0, keys: 0 }), { timeout: 5000, interval: 20 });
  const again = await rawHttp(server.baseUrl, {
    method: 'POST',
    path: `/synthetic-image?api_key=${server.apiKey}`,
    body: `{"prompt":"a red circle","pad":"${'x'.repeat(6 * MB)}"}`,
  });
  expect([again.status, parseJson<ErrorAnswer>(again.body).error.code]).toEqual([400, 'ProviderNotConfigured']);
}, 20_000);

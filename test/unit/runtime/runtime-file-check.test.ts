// A runtime binary as hosts serve it, over loopback HTTP: the file as shipped, cut short, compressed
// without the Content-Encoding that says so, an HTML page, a 404; and the gzip-compressed binary that the
// worker inflates itself. Each wrong answer is a coded error naming the URL and the fix, never a hang.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BackendError } from '../../../src/errors/index.js';
import { checkRuntimeFile, readRuntimeBinary } from '../../../src/runtime/runtime-file-check.js';

// A WASM header and then bytes: the checks look at the magic number and the size, not the code.
const WASM = new Uint8Array(100_000);
WASM.set([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
for (let i = 8; i < WASM.length; i++) WASM[i] = (i * 7919) % 251;
const GZ = gzipSync(WASM);

type Answer = { status?: number; type?: string; encoding?: string; body: Uint8Array | string };
const ANSWERS: Record<string, Answer> = {
  '/ok.wasm': { type: 'application/wasm', body: WASM },
  '/short.wasm': { type: 'application/wasm', body: WASM.subarray(0, 60_000) },
  '/gzipped.wasm': { type: 'application/wasm', body: GZ },
  '/encoded.wasm': { type: 'application/wasm', encoding: 'gzip', body: GZ },
  '/page.wasm': { type: 'text/html', body: '<!doctype html><html><body>app</body></html>' },
  '/text.wasm': { type: 'application/wasm', body: 'not a binary at all, but long enough to read' },
  '/gone.wasm': { status: 404, type: 'text/plain', body: 'not found' },
  '/ok.wasm.gz': { type: 'application/gzip', body: GZ },
  '/encoded.wasm.gz': { type: 'application/wasm', encoding: 'gzip', body: GZ },
  '/short.wasm.gz': { type: 'application/gzip', body: GZ.subarray(0, GZ.length >> 1) },
  '/of-short.wasm.gz': { type: 'application/gzip', body: gzipSync(WASM.subarray(0, 60_000)) },
  '/page.wasm.gz': { type: 'text/html', body: '<!doctype html><html><body>app</body></html>' },
  '/gone.wasm.gz': { status: 404, type: 'text/plain', body: 'not found' },
};

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    const answer = ANSWERS[req.url ?? ''] ?? { status: 404, body: '' };
    res.writeHead(answer.status ?? 200, {
      'content-type': answer.type ?? 'application/octet-stream',
      ...(answer.encoding ? { 'content-encoding': answer.encoding } : {}),
    });
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const FIX = 'run the copy step';
const check = (path: string) =>
  checkRuntimeFile(`${base}${path}`, "onnxruntime-web's WASM binary", 'wasm', { fix: FIX, bytes: WASM.length });
const read = (path: string) =>
  readRuntimeBinary({ module: `${base}/ort.mjs`, binary: `${base}${path}`, gzip: true, bytes: WASM.length, fix: FIX }, 'webgpu');

async function failure(promise: Promise<unknown>): Promise<BackendError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BackendError);
  return error as BackendError;
}

describe('a binary that onnxruntime-web fetched, checked after it failed', () => {
  test('the file as shipped: no problem', async () => {
    expect(await check('/ok.wasm')).toBeNull();
  });

  test('sent gzip-compressed with Content-Encoding: gzip (decoded by the client): no problem', async () => {
    expect(await check('/encoded.wasm')).toBeNull();
  });

  test('cut short: RUNTIME_FILE_INVALID with both sizes, the URL, and the fix for a file that is there', async () => {
    const error = await check('/short.wasm');
    expect(error?.code).toBe('RUNTIME_FILE_INVALID');
    expect(error?.backend).toBe('wasm');
    expect(error?.message).toBe(
      `onnxruntime-web's WASM binary at ${base}/short.wasm is 60000 bytes, not the 100000 bytes of the file edgeseg ships (cut short, or another version's file); serve it byte for byte as edgeseg ships it (node_modules/edgeseg/dist/browser/, or \`npx edgeseg copy-runtime <folder>\`): a host or build step that compresses, cuts or rewrites files must leave it alone`,
    );
  });

  test('gzip-compressed without its Content-Encoding: RUNTIME_FILE_INVALID saying so', async () => {
    const error = await check('/gzipped.wasm');
    expect(error?.code).toBe('RUNTIME_FILE_INVALID');
    expect(error?.message).toContain(`${base}/gzipped.wasm is gzip-compressed but was sent without \`Content-Encoding: gzip\``);
  });

  test.each([
    ['/page.wasm', 'answered an HTML page (often a single-page-app fallback for a path the host lacks)'],
    ['/text.wasm', 'is not a WebAssembly binary'],
    ['/gone.wasm', 'answered 404'],
  ])('%s: RUNTIME_FILE_MISSING, with the fix for how the URL was found', async (path, what) => {
    const error = await check(path);
    expect(error?.code).toBe('RUNTIME_FILE_MISSING');
    expect(error?.message).toBe(`onnxruntime-web's WASM binary at ${base}${path} ${what}; ${FIX}`);
  });
});

describe('the gzip-compressed binary that the worker reads and inflates', () => {
  test('served as it is shipped: inflated to the binary, byte for byte', async () => {
    expect(Buffer.from(await read('/ok.wasm.gz')).equals(WASM)).toBe(true);
  });

  test('served with Content-Encoding: gzip (the client inflated it): the binary, byte for byte', async () => {
    expect(Buffer.from(await read('/encoded.wasm.gz')).equals(WASM)).toBe(true);
  });

  test('cut short: RUNTIME_FILE_INVALID, not a hang', async () => {
    const error = await failure(read('/short.wasm.gz'));
    expect(error.code).toBe('RUNTIME_FILE_INVALID');
    expect(error.backend).toBe('webgpu');
    expect(error.message).toContain(
      `onnxruntime-web's WASM binary at ${base}/short.wasm.gz is not a whole gzip file (cut short?); serve it byte for byte`,
    );
  });

  test('a whole gzip file of a binary cut short: RUNTIME_FILE_INVALID with both sizes', async () => {
    const error = await failure(read('/of-short.wasm.gz'));
    expect(error.code).toBe('RUNTIME_FILE_INVALID');
    expect(error.message).toContain(`${base}/of-short.wasm.gz is 60000 bytes, not the 100000 bytes of the file edgeseg ships`);
  });

  test.each([
    ['/page.wasm.gz', 'answered an HTML page (often a single-page-app fallback for a path the host lacks)'],
    ['/gone.wasm.gz', 'answered 404'],
  ])('%s: RUNTIME_FILE_MISSING, with the fix for how the URL was found', async (path, what) => {
    const error = await failure(read(path));
    expect(error.code).toBe('RUNTIME_FILE_MISSING');
    expect(error.message).toBe(`onnxruntime-web's WASM binary at ${base}${path} ${what}; ${FIX}`);
  });
});

describe('a file that gets no answer at all (offline, a host that is down)', () => {
  let closed: string;
  beforeAll(async () => {
    // A port that was listened on and is closed again: the fetch is refused, as when the host is down.
    const gone = createServer();
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
    closed = `http://127.0.0.1:${(gone.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => gone.close(() => resolve()));
  });

  test.each([
    ['onnxruntime-web fetched it', () => checkRuntimeFile(`${closed}/ort.wasm`, "onnxruntime-web's WASM binary", 'wasm', { fix: FIX })],
    [
      'the worker fetches it',
      () => failure(readRuntimeBinary({ module: `${closed}/ort.mjs`, binary: `${closed}/x.wasm.gz`, gzip: true, fix: FIX }, 'webgpu')),
    ],
  ])('%s: RUNTIME_FILE_MISSING that says no answer came, and the offline recipe, not the bundler step', async (_, run) => {
    const error = await run();
    expect(error?.code).toBe('RUNTIME_FILE_MISSING');
    expect(error?.message).toContain('could not be fetched (no answer: the network is down, the host unreachable');
    expect(error?.message).toContain('"Offline"');
    expect(error?.message).not.toContain(FIX);
  });
});

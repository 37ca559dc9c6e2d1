// Package downloads over loopback HTTP: which files are asked for, and that the weights do not wait for
// the small files.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { fetchFile, fetchPackageFiles } from '../../../src/model/index.js';
import { startTestServer, type TestServer } from '../../fixtures/platform-test-server.js';
import { TINY } from '../../helpers/paths.js';
import { memoryCache } from '../../helpers/memory-cache.js';
import { rejection } from '../../helpers/rejection.js';

let server: TestServer;
let legacy: Record<string, string>;
beforeAll(async () => {
  server = await startTestServer();
  const dir = TINY('tiny-legacy');
  legacy = {
    'environment.json': await readFile(join(dir, 'environment.json'), 'utf8'),
    'class_names.txt': await readFile(join(dir, 'class_names.txt'), 'utf8'),
  };
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const weights = 'x'.repeat(5000);

describe('fetchPackageFiles', () => {
  test('the weights download starts at once, while slow small files are still on their way', { timeout: 10_000 }, async () => {
    // Each file is answered only once the other two have been asked for: a loader that waited on one
    // answer before asking for the next would never finish (no clock is involved, so no machine is too slow).
    const others = (file: string) =>
      Promise.all(
        ['environment.json', 'class_names.txt', 'weights.onnx'].filter((f) => f !== file).map((f) => server.requested(`GET /pkg/${f}`)),
      );
    server.script('GET /pkg/environment.json', { text: legacy['environment.json'], after: others('environment.json') });
    server.script('GET /pkg/class_names.txt', { text: legacy['class_names.txt'], after: others('class_names.txt') });
    server.script('GET /pkg/weights.onnx', { text: weights, after: others('weights.onnx') });
    const files = await fetchPackageFiles(`${server.url}/pkg/`);
    expect(Object.keys(files).sort()).toEqual(['class_names.txt', 'environment.json', 'weights.onnx']);
    expect(new TextDecoder().decode(files['weights.onnx'])).toBe(weights);
  });

  test('a package with neither configuration file is MODEL_FILE_MISSING, and nothing is left unhandled', async () => {
    server.script('GET /pkg/weights.onnx', { text: weights, delayMs: 50 });
    await expect(fetchPackageFiles(`${server.url}/pkg/`)).rejects.toMatchObject({ code: 'MODEL_FILE_MISSING' });
  });

  test('the current layout needs class_names.txt', async () => {
    server.script('GET /pkg/inference_config.json', { json: {} });
    server.script('GET /pkg/weights.onnx', { text: weights });
    const error = await rejection(fetchPackageFiles(`${server.url}/pkg/`));
    expect(error.code).toBe('MODEL_FILE_MISSING');
    expect(error.message).toContain('class_names.txt');
  });

  test("a compressed answer's Content-Length counts the encoded bytes: the package is read whole; without an encoding, a short body is MODEL_DOWNLOAD_FAILED", async () => {
    // As a host that precompresses its static files answers (SvelteKit's adapter-node: a 42-byte
    // class_names.txt sent as 40 bytes of brotli, which fetch hands back decoded).
    const served =
      (encoding: string | null): typeof fetch =>
      (input) => {
        const file = (input instanceof Request ? input.url : input.toString()).split('/').pop()!;
        const text = file === 'weights.onnx' ? weights : legacy[file];
        if (text === undefined) return Promise.resolve(new Response('', { status: 404 }));
        const headers: Record<string, string> = { 'content-length': String(text.length - 2) };
        if (encoding) headers['content-encoding'] = encoding;
        return Promise.resolve(new Response(text, { headers }));
      };
    const files = await fetchPackageFiles('http://host/pkg/', { fetch: served('br') });
    expect(new TextDecoder().decode(files['class_names.txt'])).toBe(legacy['class_names.txt']);
    expect(new TextDecoder().decode(files['weights.onnx'])).toBe(weights);
    const error = await rejection(fetchPackageFiles('http://host/pkg/', { fetch: served(null) }));
    expect(error.code).toBe('MODEL_DOWNLOAD_FAILED');
    expect(error.message).toMatch(/got \d+ of \d+ bytes/);
  });

  test('a cached package is read from the cache alone, every file', async () => {
    server.script('GET /pkg/environment.json', { text: legacy['environment.json'] });
    server.script('GET /pkg/class_names.txt', { text: legacy['class_names.txt'] });
    server.script('GET /pkg/weights.onnx', { text: weights });
    const cache = memoryCache();
    const first = await fetchPackageFiles(`${server.url}/pkg/`, { cache });
    const asked = server.requests.length;
    const second = await fetchPackageFiles(`${server.url}/pkg/`, { cache });
    expect(server.requests.length).toBe(asked);
    expect(second).toEqual(first);
  });
});

describe('a file by data: URL (a bundler inlines small files of a bundled model so)', () => {
  test('is read, and not kept in the cache, which takes http(s) answers only', async () => {
    const cache = memoryCache();
    const text = 'background\nperson\n';
    const url = `data:text/plain;base64,${Buffer.from(text).toString('base64')}`;
    const bytes = await fetchFile(url, 'class_names.txt', true, { cache });
    expect(new TextDecoder().decode(bytes!)).toBe(text);
    expect([...cache.store.keys()]).toEqual([]);
  });
});

describe('what a package URL fetches for the model form', () => {
  const current = (resizeMode: string) => ({
    network_input: { training_input_size: { width: 64, height: 48 }, resize_mode: resizeMode, color_mode: 'rgb', input_channels: 3 },
  });

  test('model_config.json (the architecture, which decides how fit-longer-edge pads) is asked for only for fit-longer-edge', async () => {
    server.script('GET /pkg/inference_config.json', { json: current('fit-longer-edge') });
    server.script('GET /pkg/class_names.txt', { text: 'background\na\n' });
    server.script('GET /pkg/model_config.json', { json: { model_architecture: 'yolo26' } });
    server.script('GET /pkg/weights.onnx', { text: weights });
    const files = await fetchPackageFiles(`${server.url}/pkg/`);
    expect(JSON.parse(new TextDecoder().decode(files['model_config.json']))).toEqual({ model_architecture: 'yolo26' });
    server.reset();
    server.script('GET /pkg/inference_config.json', { json: current('letterbox') });
    server.script('GET /pkg/class_names.txt', { text: 'background\na\n' });
    server.script('GET /pkg/weights.onnx', { text: weights });
    expect(Object.keys(await fetchPackageFiles(`${server.url}/pkg/`)).sort()).toEqual([
      'class_names.txt',
      'inference_config.json',
      'weights.onnx',
    ]);
    expect(server.requests.map((r) => r.path)).not.toContain('/pkg/model_config.json');
  });

  test("a model file's URL where a package folder belongs says so, and asks for nothing", async () => {
    const error = await rejection(fetchPackageFiles(`${server.url}/models/u2netp.onnx?api_key=sekret`));
    expect(error).toMatchObject({ code: 'MODEL_FILE_MISSING' });
    expect(error.message).toMatch(/u2netp\.onnx\?… is a model file, and a model URL names a package folder/);
    expect(error.message).toContain('npx edgeseg package');
    expect(error.message).not.toContain('sekret');
    expect(server.requests).toEqual([]);
  });
});

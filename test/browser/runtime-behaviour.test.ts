import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { commands } from 'vitest/browser';
import { BackendError, createSegmenter, EdgesegAbortError, PlatformClient, rawFromPayload, type Segmenter } from '../../src/index.js';
import { injectFault } from '../../src/runtime/segmenter-internals.js';
import manifest from '../fixtures/reference/manifest.json';
import { anyNumber, stringContaining, stringMatching } from '../helpers/matchers.js';
import { codeOf, rejection } from '../helpers/rejection.js';
import { backendFallbacks } from './same-payload.js';

const MODEL = '/test/fixtures/models/tiny-legacy/';
const IMAGE = manifest.endToEnd.find((c) => c.file.endsWith('300x200.png'))!.file;
const bytesOf = async (file = IMAGE) => new Uint8Array(await (await fetch(`/test/fixtures/reference/${file}`)).arrayBuffer());
const nodePayload = (file = IMAGE, model = 'tiny-legacy') =>
  commands.nodeSegment(`test/fixtures/models/${model}`, `test/fixtures/reference/${file}`, 50);

let platform: PlatformClient;
beforeEach(async () => {
  await commands.resetTestServer();
  const base = await commands.testServerUrl();
  platform = new PlatformClient({ apiKey: 'test-key-123456', baseUrl: base, inferenceUrl: `${base}/infer`, retryBaseMs: 5 });
});

const opened: Segmenter[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.dispose();
});
const open = async (...args: Parameters<typeof createSegmenter>) => {
  const seg = await createSegmenter(...args);
  opened.push(seg);
  return seg;
};

// Why WebGPU is left here: headless Chromium has navigator.gpu but no adapter; Firefox ESR and WebKitGTK have no navigator.gpu.
const NO_WEBGPU = 'gpu' in navigator ? /adapter/ : /navigator\.gpu is missing/;

describe('backend choice and fallback', () => {
  test('no WebGPU (adapter or API) → wasm, and fallbacks says why', async () => {
    const seg = await open({ model: MODEL, numThreads: 2 });
    expect(seg.backend).toBe('wasm');
    const noWebGpu = { backend: 'webgpu', code: 'BACKEND_UNAVAILABLE', message: stringMatching(NO_WEBGPU) };
    if (typeof SharedArrayBuffer === 'function') {
      expect(seg.fallbacks).toEqual([noWebGpu]);
      expect(seg.numThreads).toBe(2);
    } else {
      // WebKitGTK: the two threads asked for cannot run, and the segmenter says so.
      expect(seg.fallbacks).toEqual([{ backend: 'wasm', code: 'NO_SHARED_MEMORY', message: stringMatching(/one thread/) }, noWebGpu]);
      expect(seg.numThreads).toBe(1);
    }
  });

  test('a model wasm cannot run → hosted, which answers the call', async () => {
    const expected = await nodePayload();
    await commands.scriptTestServer('POST /infer/shapes/2', [{ json: { predictions: expected } }]);
    const seg = await open({
      model: '/test/fixtures/models/unrunnable/',
      backends: ['wasm', 'hosted'],
      platform,
      hosted: { project: 'shapes', version: 2 },
    });
    expect(seg.backend).toBe('hosted');
    expect(backendFallbacks(seg)).toEqual([
      { backend: 'wasm', code: 'MODEL_LOAD_FAILED', message: stringContaining('EdgesegNoSuchOperator') },
    ]);
    expect(await seg.segment(await bytesOf())).toEqual(expected);
    // The image as the multipart `file` part that the platform's Python SDK sends.
    const [request] = await commands.testServerRequests();
    const sent = Uint8Array.from(atob(request!.bytes), (c) => c.charCodeAt(0));
    const form = await new Response(sent, { headers: { 'content-type': String(request!.headers['content-type']) } }).formData();
    expect(new Uint8Array(await (form.get('file') as File).arrayBuffer())).toEqual(await bytesOf());
  });

  test('no backend at all is NO_BACKEND with every reason', async () => {
    const error = await rejection(createSegmenter({ model: '/test/fixtures/models/unrunnable/', backends: ['webgpu', 'wasm', 'hosted'] }));
    expect(error).toBeInstanceOf(BackendError);
    expect(error.code).toBe('NO_BACKEND');
    expect(error.message).toMatch(new RegExp(`webgpu: .*${NO_WEBGPU.source}.*wasm: .*EdgesegNoSuchOperator.*hosted: .*PlatformClient`));
  });

  for (const kind of ['bytes', 'ImageData'] as const) {
    test(`a failure while running moves that call, and later ones, to the next backend (${kind})`, async () => {
      const expected = await nodePayload();
      await commands.scriptTestServer('POST /infer/shapes/2', [{ json: expected }]);
      const seg = await open({ model: MODEL, backends: ['wasm', 'hosted'], platform, hosted: { project: 'shapes', version: 2 } });
      expect(seg.backend).toBe('wasm');
      await injectFault(seg, 'run');
      let source: Uint8Array | ImageData = await bytesOf();
      if (kind === 'ImageData') {
        const bitmap = await createImageBitmap(new Blob([source as BlobPart]));
        const c = new OffscreenCanvas(bitmap.width, bitmap.height).getContext('2d')!;
        c.drawImage(bitmap, 0, 0);
        source = c.getImageData(0, 0, bitmap.width, bitmap.height);
      }
      expect(await seg.segment(source)).toEqual(expected);
      expect(seg.backend).toBe('hosted');
      expect(backendFallbacks(seg)).toEqual([{ backend: 'wasm', code: 'BACKEND_FAILED', message: stringMatching(/injected fault/) }]);
      // The retried call reached the hosted route with the image (the original bytes, or a lossless PNG).
      const [request] = await commands.testServerRequests();
      expect(request!.body.length).toBeGreaterThan(100);
      expect(await seg.segment(await bytesOf())).toEqual(expected);
    });
  }
});

describe('worker lifecycle, aborts, concurrency', () => {
  test('a worker that died between calls is replaced on the next call', async () => {
    const seg = await open({ model: MODEL, backends: ['wasm'] });
    const before = await seg.segment(await bytesOf());
    await injectFault(seg, 'crash');
    expect(await seg.segment(await bytesOf())).toEqual(before);
    expect(seg.workerRestarts).toBe(1);
    expect(seg.backend).toBe('wasm');
  });

  for (const fault of ['crash-in-run', 'error-in-run'] as const) {
    test(`a worker that dies during a call (${fault}): that call rejects with WORKER_CRASHED, the queued ones run on a fresh worker`, async () => {
      const seg = await open({ model: MODEL, backends: ['wasm'] });
      const expected = await seg.segment(await bytesOf());
      await injectFault(seg, fault);
      const [a, b, c] = [await bytesOf(), await bytesOf(), await bytesOf()];
      const t0 = performance.now();
      const [first, ...queued] = await Promise.allSettled([seg.segment(a), seg.segment(b), seg.segmentRaw(c)]);
      // Settled by the worker's death, not by a ping timeout or the test's.
      expect(performance.now() - t0).toBeLessThan(20_000);
      expect(first.status).toBe('rejected');
      const error: unknown = (first as PromiseRejectedResult).reason;
      expect(error).toBeInstanceOf(BackendError);
      expect(error).toMatchObject({
        code: 'WORKER_CRASHED',
        backend: 'wasm',
        message: stringMatching(fault === 'crash-in-run' ? /stopped without a word/ : /injected uncaught error/),
      });
      expect(queued.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
      expect((queued[0] as PromiseFulfilledResult<unknown>).value).toEqual(expected);
      expect((queued[1] as PromiseFulfilledResult<{ classIds: Uint8Array }>).value.classIds).toEqual(rawFromPayload(expected).classIds);
      expect(seg.workerRestarts).toBe(1);
      expect(seg.backend).toBe('wasm');
    });
  }

  test('a worker whose thread blocks for good during a call is found out and replaced: a Blob is run again on the fresh worker, bytes (transferred) reject', async () => {
    const seg = await open({ model: MODEL, backends: ['wasm'] });
    const blob = new Blob([await bytesOf()], { type: 'image/png' });
    const expected = await seg.segment(blob);
    await injectFault(seg, 'block-in-run');
    const t0 = performance.now();
    // The test hook makes the watch give up after 2 s of silence instead of 30 s.
    expect(await seg.segment(blob)).toEqual(expected);
    expect(performance.now() - t0).toBeGreaterThan(2000);
    expect(seg.workerRestarts).toBe(1);
    await injectFault(seg, 'block-in-run');
    const error = await rejection(seg.segment(await bytesOf()));
    expect(error).toBeInstanceOf(BackendError);
    expect(error).toMatchObject({ code: 'WORKER_CRASHED', backend: 'wasm', message: stringMatching(/stuck: it answered nothing for 2 s/) });
    // The next call gets a fresh worker.
    expect(await seg.segment(await bytesOf())).toEqual(expected);
    expect(seg.workerRestarts).toBe(2);
  });

  test('a fresh worker whose thread blocks for good while it loads the model is replaced by another, and the call gets its payload', async () => {
    const seg = await open({ model: MODEL, backends: ['wasm'] });
    const expected = await seg.segment(await bytesOf());
    // This worker dies before the next call; the one started in its place blocks while it loads.
    await injectFault(seg, 'block-in-load');
    await injectFault(seg, 'crash');
    const t0 = performance.now();
    expect(await seg.segment(await bytesOf())).toEqual(expected);
    expect(performance.now() - t0).toBeGreaterThan(2000);
    expect(seg.workerRestarts).toBe(1);
    expect(seg.backend).toBe('wasm');
  });

  test('dispose() during a call that never ends settles it, and the queued ones, with DISPOSED', async () => {
    const seg = await createSegmenter({ model: MODEL, backends: ['wasm'] });
    await seg.segment(await bytesOf());
    await injectFault(seg, 'hang-in-run');
    const [one, two] = [await bytesOf(), await bytesOf()];
    const running = rejection(seg.segment(one));
    const queued = rejection(seg.segment(two));
    // Let the first call reach the worker and start its (endless) run.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await seg.dispose();
    const errors = await Promise.all([running, queued]);
    expect(errors.map((e) => [e instanceof BackendError, e.code])).toEqual([
      [true, 'DISPOSED'],
      [true, 'DISPOSED'],
    ]);
    expect(await codeOf(seg.segment(await bytesOf()))).toBe('DISPOSED');
  });

  test('an aborted call rejects with the abort error, a queued one too, and the next call works', async () => {
    const seg = await open({ model: MODEL, backends: ['wasm'] });
    const expected = await seg.segment(await bytesOf());
    const running = new AbortController();
    const queued = new AbortController();
    const [a, b] = [await bytesOf(), await bytesOf()];
    // Issued and aborted in one tick: the first is running, the second waits in line.
    const first = seg.segment(a, { signal: running.signal });
    const second = seg.segment(b, { signal: queued.signal });
    running.abort();
    queued.abort();
    expect(await rejection(first)).toBeInstanceOf(EdgesegAbortError);
    const e2 = await rejection(second);
    expect(e2).toBeInstanceOf(EdgesegAbortError);
    expect(e2.code).toBe('ABORTED');
    expect(await codeOf(seg.segment(await bytesOf(), { signal: AbortSignal.abort() }))).toBe('ABORTED');
    expect(await seg.segment(await bytesOf())).toEqual(expected);
  });

  test('100 concurrent calls on different images each get their own mask', async () => {
    const seg = await open({ model: MODEL, backends: ['wasm'] });
    const base = await createImageBitmap(new Blob([await bytesOf()]));
    // 100 different crops of the fixture image, each encoded as PNG.
    const crops = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const w = 60 + (i % 10) * 20;
        const h = 40 + Math.floor(i / 10) * 15;
        const c = new OffscreenCanvas(w, h);
        c.getContext('2d')!.drawImage(base, (i * 7) % (300 - w + 1), (i * 3) % (200 - h + 1), w, h, 0, 0, w, h);
        return new Uint8Array(await (await c.convertToBlob({ type: 'image/png' })).arrayBuffer());
      }),
    );
    const one = [];
    for (const crop of crops.slice(0, 100)) one.push(await seg.segment(crop.slice()));
    const all = await Promise.all(crops.map((crop) => seg.segment(crop.slice())));
    expect(all).toEqual(one);
    expect(new Set(all.map((p) => `${p.image.width}x${p.image.height}:${p.segmentation_mask}`)).size).toBe(100);
  });
});

describe('model downloads', () => {
  test('byte progress, then a second start works with the model server gone (Cache Storage)', async () => {
    await caches.delete('edgeseg-models-v1');
    const server = await commands.startModelServer();
    const progress: { file: string; loaded: number; total: number | null; cached: boolean }[] = [];
    const first = await open({ model: `${server}/models/tiny-legacy/`, backends: ['wasm'], onProgress: (p) => progress.push(p) });
    const expected = await first.segment(await bytesOf());
    const weights = progress.filter((p) => p.file === 'weights.onnx');
    expect(weights.at(-1)).toEqual({ file: 'weights.onnx', loaded: weights.at(-1)!.total, total: anyNumber(), cached: false });
    await commands.stopModelServer();
    // The network is gone: a package never downloaded cannot load…
    const never = await rejection(createSegmenter({ model: `${server}/models/tiny-current/`, backends: ['wasm'] }));
    expect(never.code).toBe('NO_BACKEND');
    expect(never.message).toMatch(/could not download|MODEL_DOWNLOAD_FAILED|Failed to fetch/);
    // …but the one in the cache does.
    const cachedProgress: boolean[] = [];
    const second = await open({
      model: `${server}/models/tiny-legacy/`,
      backends: ['wasm'],
      onProgress: (p) => cachedProgress.push(p.cached),
    });
    expect(await second.segment(await bytesOf())).toEqual(expected);
    expect(cachedProgress.length).toBeGreaterThan(0);
    expect(cachedProgress.every(Boolean)).toBe(true);
  });

  test('a model from in-memory files', async () => {
    const files: Record<string, Uint8Array> = {};
    for (const name of ['weights.onnx', 'environment.json', 'class_names.txt'])
      files[name] = new Uint8Array(await (await fetch(`${MODEL}${name}`)).arrayBuffer());
    const seg = await open({ model: { files }, backends: ['wasm'] });
    const payload = await seg.segment(await bytesOf());
    expect(rawFromPayload(payload).classIds).toEqual(rawFromPayload(await nodePayload()).classIds);
  });

  test('a second start of a platform version works with the network off (the ort answer is cached too)', async () => {
    await caches.delete('edgeseg-models-v1');
    const server = await commands.startModelServer();
    await commands.scriptTestServer('GET /ort/shapes/7', [
      {
        json: {
          ort: {
            classes: ['background', 'circle', 'rectangle', 'triangle', 'star'],
            model: `${server}/models/tiny-current/weights.onnx`,
            inference_config: `${server}/models/tiny-current/inference_config.json`,
          },
        },
      },
    ]);
    const version = { workspace: 'ws', project: 'shapes', version: 7 };
    const first = await open({ model: version, platform, backends: ['wasm'] });
    const expected = await first.segment(await bytesOf());
    expect(rawFromPayload(expected).classIds).toEqual(rawFromPayload(await nodePayload(IMAGE, 'tiny-current')).classIds);
    await commands.stopModelServer();
    // No network at all: every request of this client fails to connect, as it would offline.
    const offline = new PlatformClient({
      apiKey: 'test-key-123456',
      baseUrl: platform.baseUrl,
      inferenceUrl: platform.inferenceUrl,
      retryBaseMs: 5,
      fetch: () => Promise.reject(new TypeError('Failed to fetch')),
    });
    expect(await codeOf(offline.ort('shapes', 7))).toBe('CONNECTION_FAILED');
    const second = await open({ model: version, platform: offline, backends: ['wasm'] });
    expect(second.backend).toBe('wasm');
    expect(second.spec?.classNames).toEqual(['background', 'circle', 'rectangle', 'triangle', 'star']);
    expect(await second.segment(await bytesOf())).toEqual(expected);
    // Kept by project and version, without the API key.
    const keys = (await (await caches.open('edgeseg-models-v1')).keys()).map((r) => r.url);
    expect(keys).toContain(`${platform.baseUrl}/ort/shapes/7`);
    expect(keys.join(' ')).not.toContain('test-key');
    // A version never resolved cannot start offline, and says why.
    const never = await rejection(createSegmenter({ model: { ...version, version: 8 }, platform: offline, backends: ['wasm'] }));
    expect(never.code).toBe('NO_BACKEND');
    expect(never.message).toMatch(/Failed to fetch/);
  });

  test('a platform version through the ort route', async () => {
    const server = await commands.startModelServer();
    await commands.scriptTestServer('GET /ort/shapes/2', [
      {
        json: {
          ort: {
            classes: ['background', 'circle', 'rectangle', 'triangle', 'star'],
            model: `${server}/models/tiny-legacy/weights.onnx`,
            environment: `${server}/models/tiny-legacy/environment.json`,
          },
        },
      },
    ]);
    const seg = await open({ model: { workspace: 'ws', project: 'shapes', version: 2 }, platform, backends: ['wasm', 'hosted'] });
    expect(seg.backend).toBe('wasm');
    expect(seg.spec?.classNames).toEqual(['background', 'circle', 'rectangle', 'triangle', 'star']);
    expect(rawFromPayload(await seg.segment(await bytesOf())).classIds).toEqual(rawFromPayload(await nodePayload()).classIds);
    const [ort] = await commands.testServerRequests();
    expect(ort!.query.api_key).toBe('test-key-123456');
  });
});

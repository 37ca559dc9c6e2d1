// How a segmenter starts and replaces its worker, in each engine: a worker whose script did not run is
// started again (WebKit refuses a revalidated worker script whose 304 lacks COEP, and loads it afresh the
// next time), a live worker is never taken for crashed, and a replaced worker loads the model before any call.
import { afterEach, expect, test } from 'vitest';
import { commands } from 'vitest/browser';
import { createSegmenter, InvalidInputError, type Segmenter } from '../../src/index.js';
import { injectBackendFault } from '../../src/runtime/faults.js';
import { injectFault } from '../../src/runtime/segmenter-internals.js';
import { PING_TIMEOUT_MS, WorkerBackend } from '../../src/runtime/worker-backend.js';
import manifest from '../fixtures/reference/manifest.json';
import { bytesOf, expectSamePayload } from './same-payload.js';

const MODEL = 'test/fixtures/models/tiny-legacy';
const IMAGE = manifest.endToEnd.find((c) => c.file.endsWith('300x200.png'))!.file;
const nodePayload = () => commands.nodeSegment(MODEL, `test/fixtures/reference/${IMAGE}`, 50);

const realWorker = () => new Worker(new URL('../../workers/segment-worker.ts', import.meta.url), { type: 'module' });
// A script that never runs, as a refused one: the browser fires a plain `error` Event on the Worker.
const refusedWorker = () => new Worker('/no-such-edgeseg-worker.js', { type: 'module' });

/** Workers made in turn from `makers` (the last one repeats), counting them. */
function workers(...makers: Array<() => Worker>) {
  const made = { count: 0 };
  return { made, createWorker: () => makers[Math.min(made.count++, makers.length - 1)]!() };
}

const started: Array<WorkerBackend | Segmenter> = [];
afterEach(async () => {
  for (const s of started.splice(0)) await s.dispose();
});

const start = async (createWorker: () => Worker, onRestart?: (reason: string) => void) => {
  const backend = await WorkerBackend.start('wasm', {
    load: { model: { kind: 'url', baseUrl: new URL(`/${MODEL}/`, location.href).toString() }, numThreads: 1, cache: false },
    maxPixels: 50_000_000,
    createWorker,
    ...(onRestart ? { onRestart } : {}),
  });
  started.push(backend);
  return backend;
};

test('a worker whose script did not run is started again, and the model loads in the new one', async () => {
  const { made, createWorker } = workers(refusedWorker, realWorker);
  const backend = await start(createWorker);
  expect(made.count).toBe(2);
  const outcome = await backend.segment(await bytesOf(IMAGE), { confidence: 50, wantRetry: false });
  if (!outcome.ok) throw outcome.error;
  expectSamePayload(IMAGE, outcome.value, await nodePayload());
});

test('a worker script that never runs fails the start after three tries, with WORKER_CRASHED', async () => {
  const { made, createWorker } = workers(refusedWorker);
  const error = await start(createWorker).catch((e: unknown) => e);
  expect(made.count).toBe(3);
  expect((error as { code?: string }).code).toBe('WORKER_CRASHED');
  expect((error as Error).message).toMatch(/script did not run/);
});

test('a replaced worker loads the model before it runs the call, even when its first script is refused', async () => {
  const restarts: string[] = [];
  const { made, createWorker } = workers(realWorker, refusedWorker, realWorker);
  const backend = await start(createWorker, (reason) => restarts.push(reason));
  await injectBackendFault(backend, 'crash');
  const outcome = await backend.segment(await bytesOf(IMAGE), { confidence: 50, wantRetry: false });
  if (!outcome.ok) throw outcome.error;
  expect(made.count).toBe(3);
  expect(restarts).toEqual([expect.stringMatching(/stopped|answering|gone/)]);
  expectSamePayload(IMAGE, outcome.value, await nodePayload());
});

test('a worker whose module is evaluated twice (WebKit, bundled apps) answers every call from the instance with the model', async () => {
  const backend = await start(() => new Worker(new URL('./workers/evaluated-twice.ts', import.meta.url), { type: 'module' }));
  const node = await nodePayload();
  for (let i = 0; i < 3; i++) {
    const outcome = await backend.segment(await bytesOf(IMAGE), { confidence: 50, wantRetry: false });
    if (!outcome.ok) throw outcome.error;
    expectSamePayload(IMAGE, outcome.value, node);
  }
});

test('a live worker is never taken for crashed: calls in a row, bytes that cannot be sent, and idle time keep the same worker', async () => {
  const seg = await createSegmenter({ model: `/${MODEL}/`, backends: ['wasm'], numThreads: 1 });
  started.push(seg);
  const bytes = await bytesOf(IMAGE);
  const first = await seg.segment(bytes, { confidence: 50 });
  // The first call transferred these bytes to the worker: sending them again is the caller's mistake.
  const error = await seg.segment(bytes, { confidence: 50 }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(InvalidInputError);
  expect((error as InvalidInputError).code).toBe('IMAGE_SOURCE_INVALID');
  // Longer than the Web Lock watch and the ping take to say anything.
  await new Promise((resolve) => setTimeout(resolve, PING_TIMEOUT_MS + 1000));
  for (let i = 0; i < 3; i++) expect(await seg.segment(await bytesOf(IMAGE), { confidence: 50 })).toEqual(first);
  expect(seg.workerRestarts).toBe(0);
  expectSamePayload(IMAGE, first, await nodePayload());
  // And a worker that really died is still found and replaced.
  await injectFault(seg, 'crash');
  expect(await seg.segment(await bytesOf(IMAGE), { confidence: 50 })).toEqual(first);
  expect(seg.workerRestarts).toBe(1);
});

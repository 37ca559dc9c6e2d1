import { afterEach, expect, test } from 'vitest';
import { createSegmenter, type Segmenter } from '../../src/index.js';
import { planThreads } from '../../src/runtime/threads.js';
import { stringMatching } from '../helpers/matchers.js';

test('the thread plan: half the cores (at most 4) when threads can run; 1 and a note that says why otherwise', () => {
  const plan = (isolated: boolean, cores: number | undefined, requested?: number, local = true, sharedMemory = true) =>
    planThreads({ isolated, sharedMemory, cores, requested, local });
  expect([2, 3, 8, 16].map((cores) => plan(true, cores).numThreads)).toEqual([1, 1, 4, 4]);
  expect(plan(true, 6)).toEqual({ numThreads: 3, oneThread: null });
  expect(plan(true, undefined)).toEqual({ numThreads: 1, oneThread: null });
  expect(plan(false, 16)).toEqual({
    numThreads: 1,
    oneThread: { code: 'NOT_ISOLATED', message: stringMatching(/not cross-origin isolated.*one thread/) },
  });
  // Isolated, but no SharedArrayBuffer (WebKitGTK): onnxruntime-web would drop to one thread without a word.
  expect(plan(true, 16, undefined, true, false)).toEqual({
    numThreads: 1,
    oneThread: { code: 'NO_SHARED_MEMORY', message: stringMatching(/no SharedArrayBuffer.*one thread/) },
  });
  // The caller's choice stands where threads can run, and then there is nothing to explain…
  expect(plan(true, 2, 3)).toEqual({ numThreads: 3, oneThread: null });
  expect(plan(false, 16, 1)).toEqual({ numThreads: 1, oneThread: null });
  // …and where they cannot, the count is what will run, with the reason.
  expect(plan(false, 16, 3)).toEqual({ numThreads: 1, oneThread: { code: 'NOT_ISOLATED', message: stringMatching(/one thread/) } });
  expect(plan(true, 16, 2, true, false)).toEqual({
    numThreads: 1,
    oneThread: { code: 'NO_SHARED_MEMORY', message: stringMatching(/one thread/) },
  });
  // Only the hosted route: threads do not matter.
  expect(plan(false, 16, undefined, false)).toEqual({ numThreads: 1, oneThread: null });
});

// This test page is cross-origin isolated (the test server sends COOP/COEP), so the page's answer to
// `crossOriginIsolated` is replaced for one test: the segmenter reads it when it starts.
const original = Object.getOwnPropertyDescriptor(globalThis, 'crossOriginIsolated');
let seg: Segmenter | null = null;
afterEach(async () => {
  if (original) Object.defineProperty(globalThis, 'crossOriginIsolated', original);
  await seg?.dispose();
  seg = null;
});

test('on a page that is not cross-origin isolated, numThreads: 2 gives one thread, and fallbacks says why', async () => {
  Object.defineProperty(globalThis, 'crossOriginIsolated', { value: false, configurable: true });
  seg = await createSegmenter({ model: '/test/fixtures/models/tiny-legacy/', backends: ['wasm'], numThreads: 2 });
  expect([seg.backend, seg.numThreads]).toEqual(['wasm', 1]);
  expect(seg.fallbacks).toEqual([{ backend: 'wasm', code: 'NOT_ISOLATED', message: stringMatching(/not cross-origin isolated/) }]);
});

test('on a page that is not cross-origin isolated, numThreads defaults to 1 and fallbacks says why', async () => {
  expect(original?.configurable).toBe(true);
  Object.defineProperty(globalThis, 'crossOriginIsolated', { value: false, configurable: true });
  expect(globalThis.crossOriginIsolated).toBe(false);
  seg = await createSegmenter({ model: '/test/fixtures/models/tiny-legacy/', backends: ['wasm'] });
  expect(seg.backend).toBe('wasm');
  expect(seg.numThreads).toBe(1);
  expect(seg.fallbacks).toEqual([{ backend: 'wasm', code: 'NOT_ISOLATED', message: stringMatching(/not cross-origin isolated/) }]);
});

test('on this isolated page the default is half the cores, at most 4, with no note (one thread, with a note, where SharedArrayBuffer is missing)', async () => {
  expect(globalThis.crossOriginIsolated).toBe(true);
  seg = await createSegmenter({ model: '/test/fixtures/models/tiny-legacy/', backends: ['wasm'] });
  if (typeof SharedArrayBuffer === 'function') {
    expect(seg.numThreads).toBe(Math.min(4, Math.max(1, Math.floor(navigator.hardwareConcurrency / 2))));
    expect(seg.fallbacks).toEqual([]);
  } else {
    expect(seg.numThreads).toBe(1);
    expect(seg.fallbacks).toEqual([{ backend: 'wasm', code: 'NO_SHARED_MEMORY', message: stringMatching(/no SharedArrayBuffer/) }]);
  }
});

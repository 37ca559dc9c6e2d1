// The browser's WASM threads: the default for the cores (stills, and live video with a core left to its
// frame loop), what `threads` reports, one thread with a note where the page cannot run more, bad counts.
import { afterEach, expect, test } from 'vitest';
import { createSegmenter, createVideoEffect, type Segmenter, type VideoEffect } from '../../src/index.js';
import { defaultThreads } from '../../src/runtime/threads.js';
import { stringMatching } from '../helpers/matchers.js';

// This test page is cross-origin isolated (the test server sends COOP/COEP), so the page's answer to
// `crossOriginIsolated` is replaced for one test: the segmenter reads it when it starts.
const original = Object.getOwnPropertyDescriptor(globalThis, 'crossOriginIsolated');
let seg: Segmenter | null = null;
let fx: VideoEffect | null = null;
afterEach(async () => {
  if (original) Object.defineProperty(globalThis, 'crossOriginIsolated', original);
  await seg?.dispose();
  await fx?.close();
  [seg, fx] = [null, null];
});

test('on a page that is not cross-origin isolated, numThreads: 2 gives one thread, and fallbacks says why', async () => {
  Object.defineProperty(globalThis, 'crossOriginIsolated', { value: false, configurable: true });
  seg = await createSegmenter({ model: '/test/fixtures/models/tiny-legacy/', backends: ['wasm'], numThreads: 2 });
  expect([seg.backend, seg.numThreads]).toEqual(['wasm', 1]);
  expect(seg.threads).toMatchObject({ numThreads: 1, source: 'one-thread', reason: stringMatching(/not cross-origin isolated/) });
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

test('on this isolated page the default is half the cores, at least 1, at most 4, and `threads` says so (one thread, with a note, where SharedArrayBuffer is missing)', async () => {
  expect(globalThis.crossOriginIsolated).toBe(true);
  seg = await createSegmenter({ model: '/test/fixtures/models/tiny-legacy/', backends: ['wasm'] });
  const cores = navigator.hardwareConcurrency;
  if (typeof SharedArrayBuffer === 'function') {
    const half = defaultThreads(cores, 'stills');
    expect(seg.numThreads).toBe(half);
    expect(seg.threads).toEqual({
      numThreads: half,
      cores,
      source: 'default',
      reason: stringMatching(`^${cores} cores?: ${half} WASM thread`),
    });
    expect(seg.fallbacks).toEqual([]);
  } else {
    expect(seg.numThreads).toBe(1);
    expect(seg.threads).toEqual({ numThreads: 1, cores, source: 'one-thread', reason: stringMatching(/no SharedArrayBuffer/) });
    expect(seg.fallbacks).toEqual([{ backend: 'wasm', code: 'NO_SHARED_MEMORY', message: stringMatching(/no SharedArrayBuffer/) }]);
  }
});

test("live video's default gives the frame loop's worker one of those threads' cores, and stats.threads says so; numThreads still wins", async () => {
  fx = await createVideoEffect({ model: '/test/fixtures/models/tiny-legacy/', backends: ['wasm'] });
  const cores = navigator.hardwareConcurrency;
  if (typeof SharedArrayBuffer === 'function') {
    const video = defaultThreads(cores, 'video');
    expect(fx.segmenter.numThreads).toBe(video);
    expect(fx.stats.threads).toEqual({
      numThreads: video,
      cores,
      source: 'default',
      reason: stringMatching(/frame loop's worker/),
    });
  } else expect(fx.stats.threads).toMatchObject({ numThreads: 1, source: 'one-thread' });
  await fx.close();
  fx = await createVideoEffect({ model: '/test/fixtures/models/tiny-legacy/', backends: ['wasm'], numThreads: 1 });
  expect(fx.stats.threads).toEqual({ numThreads: 1, cores, source: 'option', reason: 'numThreads: 1, as given' });
});

test('numThreads of 0, fractional or past 64 is refused with OPTION_INVALID naming the range, for stills and video', async () => {
  for (const numThreads of [0, 2.5, 65]) {
    await expect(createSegmenter({ model: '/test/fixtures/models/tiny-legacy/', backends: ['wasm'], numThreads })).rejects.toMatchObject({
      code: 'OPTION_INVALID',
      message: stringMatching(`from 1 to 64, got ${numThreads}$`),
    });
    await expect(createVideoEffect({ model: '/test/fixtures/models/tiny-legacy/', backends: ['wasm'], numThreads })).rejects.toMatchObject({
      code: 'OPTION_INVALID',
      message: stringMatching('from 1 to 64'),
    });
  }
});

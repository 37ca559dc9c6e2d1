// `backends` in Node, as in the browser: tried in order; `backend` still works for one release.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSegmenter, type NodeSegmenter } from '../../../src/node/index.js';
import { fixturePath, manifest } from '../../fixtures/reference/fixtures.js';
import { TINY } from '../../helpers/paths.js';
import { codeOf, rejection } from '../../helpers/rejection.js';

describe('backends', () => {
  let png: Buffer;
  let wasm: NodeSegmenter;
  let deprecated: NodeSegmenter;
  beforeAll(async () => {
    png = await readFile(fixturePath(manifest.endToEnd[0]!.file));
    wasm = await createSegmenter({ model: TINY('tiny-legacy'), backends: ['wasm', 'native'] });
    deprecated = await createSegmenter({ model: TINY('tiny-legacy'), backend: 'wasm' });
  });
  afterAll(async () => {
    await wasm.dispose();
    await deprecated.dispose();
  });

  test('the first backend that loads runs the model; the deprecated backend option gives the same segmenter', async () => {
    expect(wasm.backend).toBe('wasm');
    expect(deprecated.backend).toBe('wasm');
    expect(await wasm.segment(png)).toEqual(await deprecated.segment(png));
  });

  test('the default is native', async () => {
    const seg = await createSegmenter({ model: TINY('tiny-legacy'), numThreads: 1 });
    expect(seg.backend).toBe('native');
    await seg.dispose();
  });

  const bad: [string, Parameters<typeof createSegmenter>[0], RegExp][] = [
    ['an empty list', { backends: [] }, /backends must be a non-empty list/],
    [
      'a name of the browser',
      { backends: ['webgpu' as never] },
      /backends must be a non-empty list of "native" and "wasm", got \["webgpu"\]/,
    ],
    ['both spellings', { backends: ['native'], backend: 'native' }, /not both/],
    ['a bad deprecated name', { backend: 'gpu' as never }, /backend must be "native" or "wasm", got "gpu"/],
  ];
  for (const [name, options, message] of bad) {
    test(`${name} is OPTION_INVALID`, async () => {
      const error = await rejection(createSegmenter({ model: TINY('tiny-legacy'), ...options }));
      expect(error.code).toBe('OPTION_INVALID');
      expect(error.message).toMatch(message);
    });
  }
});

test('segmentDetailed reports every stage and the whole call, in the one Timings type', async () => {
  const seg = await createSegmenter({ model: TINY('tiny-legacy'), numThreads: 1 });
  const { timings } = await seg.segmentDetailed(fixturePath(manifest.endToEnd[0]!.file));
  const stages = [timings.decode, timings.preprocess, timings.run, timings.postprocess, timings.encode];
  for (const t of stages) expect(t).toBeGreaterThanOrEqual(0);
  // The whole call holds every stage.
  expect(timings.total).toBeGreaterThanOrEqual(stages.reduce((a, b) => a + b, 0) - 1e-6);
  expect(await codeOf(seg.segmentDetailed('/nonexistent.png'))).toBe('IMAGE_SOURCE_INVALID');
  await seg.dispose();
});

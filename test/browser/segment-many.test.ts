// The browser speaks as edgeseg/node does: segmentMany, one result per source in order, and { url } models.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createSegmenter, type Segmenter } from '../../src/index.js';
import manifest from '../fixtures/reference/manifest.json';
import { rejection, thrown } from '../helpers/rejection.js';

const PNG = manifest.endToEnd.find((c) => c.file.endsWith('97x61.png'))!.file;
const JPEG = manifest.endToEnd.find((c) => c.file.endsWith('.jpg'))!.file;
const url = (file: string) => `/test/fixtures/reference/${file}`;
const bytesOf = async (file: string) => new Uint8Array(await (await fetch(url(file))).arrayBuffer());

let seg: Segmenter;
beforeAll(async () => {
  seg = await createSegmenter({ model: '/test/fixtures/models/tiny-legacy/', backends: ['wasm'] });
});
afterAll(() => seg.dispose());

test('one result per source, in the sources order; a bad source fails alone', async () => {
  const expected = [await seg.segment(await bytesOf(PNG)), await seg.segment(await bytesOf(JPEG))];
  const sources = [await bytesOf(PNG), new TextEncoder().encode('not an image'), await bytesOf(JPEG)];
  const results = [];
  for await (const r of seg.segmentMany(sources, { concurrency: 3, confidence: 50 })) results.push(r);
  expect(results.map((r) => [r.index, r.ok])).toEqual([
    [0, true],
    [1, false],
    [2, true],
  ]);
  const [first, bad, last] = results;
  expect(first!.ok && first!.payload).toEqual(expected[0]);
  expect(last!.ok && last!.payload).toEqual(expected[1]);
  expect(first!.ok && first!.timings.total).toBeGreaterThan(0);
  expect(!bad!.ok && bad!.error.code).toBe('IMAGE_FORMAT_UNSUPPORTED');
  expect(bad!.source).toBe(sources[1]);
});

test('a bad option throws at the call; an abort ends the batch with EdgesegAbortError', async () => {
  expect(thrown(() => seg.segmentMany([], { concurrency: 0 })).code).toBe('OPTION_INVALID');
  expect(thrown(() => seg.segmentMany([], { confidence: 101 })).code).toBe('CONFIDENCE_INVALID');
  const controller = new AbortController();
  controller.abort();
  const batch = seg.segmentMany([await bytesOf(PNG)], { signal: controller.signal });
  const error = await rejection(batch.next());
  expect(error.name).toBe('EdgesegAbortError');
  // The segmenter goes on.
  expect((await seg.segment(await bytesOf(PNG))).image).toEqual({ width: 97, height: 61 });
});

test('a model as { url }, as edgeseg/node takes it, is the same model as the URL string', async () => {
  const byUrl = await createSegmenter({ model: { url: '/test/fixtures/models/tiny-legacy/' }, backends: ['wasm'] });
  try {
    expect(await byUrl.segment(await bytesOf(PNG))).toEqual(await seg.segment(await bytesOf(PNG)));
  } finally {
    await byUrl.dispose();
  }
});

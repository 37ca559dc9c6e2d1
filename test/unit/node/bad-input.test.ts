import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSegmenter, InvalidInputError, type NodeSegmenter } from '../../../src/node/index.js';
import { fixturePath, manifest } from '../../fixtures/reference/fixtures.js';
import { TINY } from '../../helpers/paths.js';
import { codeOf, rejection } from '../../helpers/rejection.js';

describe('bad input gives a coded error and the segmenter keeps working', () => {
  let seg: NodeSegmenter;
  let png: Buffer;
  let jpeg: Buffer;
  beforeAll(async () => {
    seg = await createSegmenter({ model: TINY('tiny-legacy'), numThreads: 1, maxPixels: 100_000 });
    png = await readFile(fixturePath(manifest.endToEnd[0]!.file));
    jpeg = await readFile(fixturePath(manifest.endToEnd.find((c) => c.file.endsWith('.jpg'))!.file));
  });
  afterAll(() => seg.dispose());

  const cases: [string, () => unknown, string][] = [
    ['an empty file', () => new Uint8Array(0), 'IMAGE_EMPTY'],
    ['corrupt bytes with a PNG signature', () => Buffer.concat([png.subarray(0, 40), Buffer.alloc(200, 7)]), 'IMAGE_DECODE_FAILED'],
    ['a truncated JPEG', () => jpeg.subarray(0, Math.floor(jpeg.length / 2)), 'IMAGE_DECODE_FAILED'],
    ['text, not an image', () => new TextEncoder().encode('hello, this is not an image at all'), 'IMAGE_FORMAT_UNSUPPORTED'],
    ['an image over the pixel limit', () => ({ data: new Uint8Array(3), width: 1000, height: 1000, channels: 3 }), 'IMAGE_TOO_LARGE'],
    ['a missing file path', () => '/nonexistent/photo.jpg', 'IMAGE_SOURCE_INVALID'],
  ];
  for (const [name, source, code] of cases) {
    test(name, async () => {
      const error = await rejection(seg.segment(source() as never));
      expect(error).toBeInstanceOf(InvalidInputError);
      expect(error.code).toBe(code);
      // And the next call works.
      expect((await seg.segment(png)).image.width).toBeGreaterThan(0);
    });
  }

  test('the pixel limit is checked from the header, before decoding', async () => {
    const small = await createSegmenter({ model: TINY('tiny-legacy'), numThreads: 1, maxPixels: 1000 });
    expect(await codeOf(small.segment(png))).toBe('IMAGE_TOO_LARGE');
    await small.dispose();
  });

  test.each([Number.NaN, 0, -1, '100'])('maxPixels %s: OPTION_INVALID naming it, before the model loads', async (maxPixels) => {
    const error = await rejection(createSegmenter({ model: '/nowhere/at/all', maxPixels: maxPixels as number }));
    expect([error.code, error.message]).toEqual([
      'OPTION_INVALID',
      `maxPixels must be a positive number of pixels, got ${typeof maxPixels === 'number' ? String(maxPixels) : 'string'}`,
    ]);
  });

  test.each([Number.NaN, -1, 101, Infinity])('confidence %s', async (confidence) => {
    expect(await codeOf(seg.segment(png, { confidence }))).toBe('CONFIDENCE_INVALID');
  });

  test('a disposed segmenter says so', async () => {
    const s = await createSegmenter({ model: TINY('tiny-legacy'), numThreads: 1 });
    await s.dispose();
    expect(await codeOf(s.segment(png))).toBe('DISPOSED');
  });

  test('concurrent calls each get their own answer', async () => {
    const files = [...new Set(manifest.endToEnd.map((c) => c.file))];
    const sources = await Promise.all(files.map((f) => readFile(fixturePath(f))));
    const one = await Promise.all(sources.map((s) => seg.segment(s)));
    const again = await Promise.all([...sources, ...sources].map((s) => seg.segment(s)));
    expect(again).toEqual([...one, ...one]);
  });
});

import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSegmenter, decodeImage, rawFromPayload, type NodeSegmenter } from '../../../src/node/index.js';
import { compareClassIds, fixturePath, loadUint8, manifest } from '../../fixtures/reference/fixtures.js';
import { TINY } from '../../helpers/paths.js';

describe('decodeImage gives the pixels the reference server decodes (OpenCV, EXIF applied)', () => {
  const files = [...new Map(manifest.endToEnd.map((c) => [c.file, c])).values()];
  for (const c of files) {
    test(c.file, async () => {
      const image = await decodeImage(await readFile(fixturePath(c.file)));
      expect([image.width, image.height, image.channels]).toEqual([c.width, c.height, 3]);
      const expected = loadUint8(c.decoded);
      let differing = 0;
      for (let i = 0; i < expected.length; i++) if (image.data[i] !== expected[i]) differing++;
      expect(differing).toBe(0);
    });
  }
});

for (const backend of ['native', 'wasm'] as const) {
  describe(`the ${backend} backend reproduces the reference class ids end to end`, () => {
    const segmenters = new Map<string, NodeSegmenter>();
    beforeAll(async () => {
      for (const name of ['tiny-legacy', 'tiny-current', 'tiny-nobg', 'tiny-binary', 'tiny-yolo26', 'tiny-dynamic']) {
        // A package whose model takes other sizes runs at the size its cases ask for.
        const inputSize = manifest.endToEnd.find((c) => c.package === name)?.inputSize;
        segmenters.set(
          name,
          await createSegmenter({ model: TINY(name), backends: [backend], numThreads: 1, ...(inputSize ? { inputSize } : {}) }),
        );
      }
    });
    afterAll(async () => {
      for (const s of segmenters.values()) await s.dispose();
    });
    for (const c of manifest.endToEnd) {
      test(c.name, async () => {
        const seg = segmenters.get(c.package)!;
        const payload = await seg.segment(fixturePath(c.file), { confidence: c.confidence });
        expect(payload.image).toEqual({ width: c.width, height: c.height });
        expect(payload.class_map).toEqual(Object.fromEntries(seg.classNames.map((n, i) => [String(i), n])));
        const { wrong } = compareClassIds(rawFromPayload(payload).classIds, loadUint8(c.classIds), loadUint8(c.ambiguous));
        expect(wrong).toBe(0);
      });
    }
  });
}

import { describe, expect, test } from 'vitest';
import { classIdsFromLogits } from '../../../src/pipeline/index.js';
import { compareClassIds, loadFloat32, loadUint8, manifest } from '../../fixtures/reference/fixtures.js';

describe('classIdsFromLogits matches the reference postprocessing', () => {
  for (const c of manifest.postprocess) {
    test(c.name, () => {
      const [channels, height, width] = c.logits.shape;
      const ids = classIdsFromLogits({ data: loadFloat32(c.logits), channels, height, width }, c.meta, {
        confidence: c.confidence,
        classCount: c.classCount,
        backgroundClassId: c.backgroundClassId,
      });
      const { wrong, ambiguousDiffering } = compareClassIds(ids, loadUint8(c.classIds), loadUint8(c.ambiguous));
      expect(wrong).toBe(0);
      expect(ambiguousDiffering).toBeLessThanOrEqual(c.ambiguousCount);
    });
  }

  test('writes into the buffer it is given', () => {
    const c = manifest.postprocess[0];
    const [channels, height, width] = c.logits.shape;
    const out = new Uint8Array(c.meta.originalWidth * c.meta.originalHeight).fill(99);
    const ids = classIdsFromLogits({ data: loadFloat32(c.logits), channels, height, width }, c.meta, { confidence: c.confidence, classCount: c.classCount, backgroundClassId: 0 }, out);
    expect(ids).toBe(out);
    expect(out.includes(99)).toBe(false);
  });

  test('a channel count that fits no class layout is a coded error', () => {
    const c = manifest.postprocess[0];
    const [channels, height, width] = c.logits.shape;
    expect(() =>
      classIdsFromLogits({ data: loadFloat32(c.logits), channels, height, width }, c.meta, { confidence: 50, classCount: 9, backgroundClassId: 0 }),
    ).toThrow(expect.objectContaining({ code: 'MODEL_OUTPUT_SHAPE' }));
  });
});

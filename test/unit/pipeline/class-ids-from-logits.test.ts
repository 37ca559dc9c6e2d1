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

describe('classIdsFromLogits with 256 classes (the 8-bit mask limit)', () => {
  const C = 256;
  const meta = (w: number, h: number, inW: number, inH: number) => ({
    originalWidth: w, originalHeight: h, cropX: 0, cropY: 0, cropWidth: w, cropHeight: h,
    inputWidth: inW, inputHeight: inH, padLeft: 0, padTop: 0, padRight: 0, padBottom: 0,
  });
  // Winning class per logit pixel; -1: every logit 0, a pixel far below any threshold. The top channels
  // are the ones that once collided with the shortcut's markers (254 and 255).
  const winners = [
    [254, 254, 255, 255, 253, -1],
    [254, 254, 255, 255, 0, 1],
    [128, 255, 254, 2, 255, 254],
    [-1, 3, 254, 255, 254, 255],
  ];
  const h = winners.length;
  const w = winners[0]!.length;
  const logits = new Float32Array(C * h * w);
  winners.forEach((row, y) => row.forEach((c, x) => { if (c >= 0) logits[c * h * w + y * w + x] = 12; }));

  /** The unfused reference: torch's bilinear upsampling (align_corners=False) of every channel, softmax, argmax, threshold. */
  function naive(outW: number, outH: number, confidence: number): { ids: Uint8Array; tie: Uint8Array } {
    const axis = (n: number, out: number, i: number): [number, number, number] => {
      const src = Math.max((i + 0.5) * (n / out) - 0.5, 0);
      const i0 = Math.min(Math.floor(src), n - 1);
      return [i0, Math.min(i0 + 1, n - 1), src - i0];
    };
    const ids = new Uint8Array(outW * outH);
    const tie = new Uint8Array(outW * outH);
    for (let y = 0; y < outH; y++) {
      const [y0, y1, fy] = axis(h, outH, y);
      for (let x = 0; x < outW; x++) {
        const [x0, x1, fx] = axis(w, outW, x);
        const z = Array.from({ length: C }, (_, c) => {
          const at = (yy: number, xx: number) => logits[c * h * w + yy * w + xx]!;
          return (1 - fy) * ((1 - fx) * at(y0, x0) + fx * at(y0, x1)) + fy * ((1 - fx) * at(y1, x0) + fx * at(y1, x1));
        });
        const order = z.map((v, c) => [v, c] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
        const top = order[0]![0];
        const prob = 1 / z.reduce((s, v) => s + Math.exp(v - top), 0);
        ids[y * outW + x] = prob < confidence / 100 ? 0 : order[0]![1];
        // Exact ties and pixels on the threshold are decided by float32 rounding: not this test's point.
        tie[y * outW + x] = Number(top - order[1]![0] < 1e-3 || Math.abs(prob - confidence / 100) < 1e-3);
      }
    }
    return { ids, tie };
  }

  test('confident pixels of classes 254 and 255 keep their class at the logits’ own size', () => {
    const ids = classIdsFromLogits({ data: logits, channels: C, height: h, width: w }, meta(w, h, w, h), { confidence: 50, classCount: C, backgroundClassId: 0 });
    expect(Array.from(ids)).toEqual(winners.flat().map((c) => Math.max(c, 0)));
    expect(Array.from(ids)).toEqual(Array.from(naive(w, h, 50).ids));
  });

  test('upsampled, every pixel that is not a tie matches the unfused reference', () => {
    const outW = 17;
    const outH = 11;
    for (const confidence of [0, 50, 90]) {
      const ids = classIdsFromLogits({ data: logits, channels: C, height: h, width: w }, meta(outW, outH, w, h), { confidence, classCount: C, backgroundClassId: 0 });
      const ref = naive(outW, outH, confidence);
      const differing = Array.from(ids).flatMap((id, p) => (ref.tie[p] === 0 && id !== ref.ids[p] ? [{ p, id, expected: ref.ids[p] }] : []));
      expect(differing).toEqual([]);
      // The comparison covers the classes at issue, not only background.
      expect(ids.filter((id, p) => id === 254 && ref.tie[p] === 0).length).toBeGreaterThan(10);
      expect(ids.filter((id, p) => id === 255 && ref.tie[p] === 0).length).toBeGreaterThan(10);
    }
  });
});

import { describe, expect, test } from 'vitest';
import { antialiasWeights, fma32 } from '../../../src/pipeline/antialias-weights.js';
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
    const c = manifest.postprocess[0]!;
    const [channels, height, width] = c.logits.shape;
    const out = new Uint8Array(c.meta.originalWidth * c.meta.originalHeight).fill(99);
    const ids = classIdsFromLogits(
      { data: loadFloat32(c.logits), channels, height, width },
      c.meta,
      { confidence: c.confidence, classCount: c.classCount, backgroundClassId: 0 },
      out,
    );
    expect(ids).toBe(out);
    expect(out.includes(99)).toBe(false);
  });

  test('a channel count that fits no class layout is a coded error', () => {
    const c = manifest.postprocess[0]!;
    const [channels, height, width] = c.logits.shape;
    expect(() =>
      classIdsFromLogits({ data: loadFloat32(c.logits), channels, height, width }, c.meta, {
        confidence: 50,
        classCount: 9,
        backgroundClassId: 0,
      }),
    ).toThrow(expect.objectContaining({ code: 'MODEL_OUTPUT_SHAPE' }));
  });
});

describe('classIdsFromLogits with 256 classes (the 8-bit mask limit)', () => {
  const C = 256;
  const meta = (w: number, h: number, inW: number, inH: number) => ({
    originalWidth: w,
    originalHeight: h,
    cropX: 0,
    cropY: 0,
    cropWidth: w,
    cropHeight: h,
    inputWidth: inW,
    inputHeight: inH,
    padLeft: 0,
    padTop: 0,
    padRight: 0,
    padBottom: 0,
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
  winners.forEach((row, y) =>
    row.forEach((c, x) => {
      if (c >= 0) logits[c * h * w + y * w + x] = 12;
    }),
  );

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
    const ids = classIdsFromLogits({ data: logits, channels: C, height: h, width: w }, meta(w, h, w, h), {
      confidence: 50,
      classCount: C,
      backgroundClassId: 0,
    });
    expect(Array.from(ids)).toEqual(winners.flat().map((c) => Math.max(c, 0)));
    expect(Array.from(ids)).toEqual(Array.from(naive(w, h, 50).ids));
  });

  test('upsampled, every pixel that is not a tie matches the unfused reference', () => {
    const outW = 17;
    const outH = 11;
    for (const confidence of [0, 50, 90]) {
      const ids = classIdsFromLogits({ data: logits, channels: C, height: h, width: w }, meta(outW, outH, w, h), {
        confidence,
        classCount: C,
        backgroundClassId: 0,
      });
      const ref = naive(outW, outH, confidence);
      const differing = Array.from(ids).flatMap((id, p) =>
        ref.tie[p] === 0 && id !== ref.ids[p] ? [{ p, id, expected: ref.ids[p] }] : [],
      );
      expect(differing).toEqual([]);
      // The comparison covers the classes at issue, not only background.
      expect(ids.filter((id, p) => id === 254 && ref.tie[p] === 0).length).toBeGreaterThan(10);
      expect(ids.filter((id, p) => id === 255 && ref.tie[p] === 0).length).toBeGreaterThan(10);
    }
  });
});

describe('classIdsFromLogits, fused, equals the unfused float32 computation', () => {
  const f32 = Math.fround;
  /** torch's arithmetic, one output pixel at a time: both passes, then the float32 softmax and threshold. */
  function unfused(logits: Float32Array, C: number, h: number, w: number, outW: number, outH: number, confidence: number): Uint8Array {
    const ax = antialiasWeights(w, outW);
    const ay = antialiasWeights(h, outH);
    const threshold = f32(confidence / 100);
    const ids = new Uint8Array(outW * outH);
    const z = new Float64Array(C);
    for (let y = 0; y < outH; y++) {
      for (let x = 0; x < outW; x++) {
        for (let c = 0; c < C; c++) {
          let acc = 0;
          for (let j = 0; j < ay.count[y]!; j++) {
            const row = c * h * w + (ay.start[y]! + j) * w + ax.start[x]!;
            let across = f32(logits[row]! * ax.weights[ax.offset[x]!]!);
            for (let i = 1; i < ax.count[x]!; i++) across = fma32(across, logits[row + i]!, ax.weights[ax.offset[x]! + i]!);
            acc = j === 0 ? f32(across * ay.weights[ay.offset[y]!]!) : fma32(acc, across, ay.weights[ay.offset[y]! + j]!);
          }
          z[c] = acc;
        }
        let best = 0;
        for (let c = 1; c < C; c++) if (z[c]! > z[best]!) best = c;
        let sum = 0;
        for (let c = 0; c < C; c++) {
          const e = f32(Math.exp(f32(z[c]! - z[best]!)));
          if (c < best && e === 1) best = c;
          sum = f32(sum + e);
        }
        ids[y * outW + x] = f32(1 / sum) < threshold ? 0 : best;
      }
    }
    return ids;
  }

  // Seeded logits whose leads sit around the softmax's threshold lead, so that the fused path's exits
  // (sure taps, the clear-lead exit, the full decision) all meet pixels on both sides of their bounds.
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const cases = [
    { C: 2, h: 5, w: 6, outW: 61, outH: 47, spread: 3 },
    { C: 5, h: 4, w: 4, outW: 250, outH: 190, spread: 2.5 },
    { C: 21, h: 6, w: 5, outW: 40, outH: 53, spread: 4 },
    { C: 4, h: 9, w: 12, outW: 7, outH: 5, spread: 3 }, // downscaling: several taps per pass
  ];
  for (const { C, h, w, outW, outH, spread } of cases) {
    test(`${C} classes, ${w}×${h} → ${outW}×${outH}`, () => {
      const logits = Float32Array.from({ length: C * h * w }, () => (random() - 0.5) * 2 * spread);
      const meta = {
        originalWidth: outW,
        originalHeight: outH,
        cropX: 0,
        cropY: 0,
        cropWidth: outW,
        cropHeight: outH,
        inputWidth: w,
        inputHeight: h,
        padLeft: 0,
        padTop: 0,
        padRight: 0,
        padBottom: 0,
      };
      let mixed = 0;
      for (const confidence of [0, 20, 33.3, 50, 75, 99.9]) {
        const ids = classIdsFromLogits({ data: logits, channels: C, height: h, width: w }, meta, {
          confidence,
          classCount: C,
          backgroundClassId: 0,
        });
        const expected = unfused(logits, C, h, w, outW, outH, confidence);
        let differing = 0;
        for (let p = 0; p < ids.length; p++) if (ids[p] !== expected[p]) differing++;
        expect({ confidence, differing }).toEqual({ confidence, differing: 0 });
        if (expected.includes(0) && expected.some((id) => id > 0)) mixed++;
      }
      // Not a vacuous comparison: at some thresholds, some pixels clear them and some do not.
      expect(mixed).toBeGreaterThan(0);
    });
  }
});

// The video path's pure arithmetic: the frame-to-grid map, logits → subject probability, the tensor from
// canvas pixels, temporal smoothing with its motion reset, and the guided (joint bilateral) upsampling.
import { describe, expect, test } from 'vitest';
import { refineCoverage } from '../../../src/video/edge-refinement.js';
import { gridMap, subjectGrid, tensorFromRgba } from '../../../src/video/fast-path.js';
import { motionOf, TemporalSmoother } from '../../../src/video/temporal-smoothing.js';
import { frameMeta } from './frame-meta.js';

const meta = frameMeta;

describe('gridMap', () => {
  test('stretch onto a 128-cell grid: frame x 0 → 0, 640 → 128; y 480 → 128', () => {
    const m = gridMap(meta({}), 128, 128);
    expect([m.scaleX * 640 + m.offsetX, m.scaleY * 480 + m.offsetY, m.offsetX, m.offsetY]).toEqual([128, 128, 0, 0]);
  });
  test('letterbox: the frame lands between the pads; a static crop shifts it', () => {
    // 640×480 into 256×256: scaled to 256×192, 32 rows of padding above and below.
    const m = gridMap(meta({ padTop: 32, padBottom: 32 }), 256, 256);
    expect([m.offsetY, m.scaleY * 480 + m.offsetY, m.scaleX]).toEqual([32, 224, 0.4]);
    const c = gridMap(meta({ cropX: 100, cropWidth: 400 }), 256, 256);
    expect([c.scaleX * 100 + c.offsetX, c.scaleX * 500 + c.offsetX]).toEqual([0, 256]);
  });
});

describe('subjectGrid', () => {
  test('sigmoid (one channel): σ(logit) as 0–255, ids by the threshold', () => {
    const g = subjectGrid({ data: Float32Array.from([-10, 0, 10, Math.log(3)]), channels: 1, width: 2, height: 2 }, 2, 0, 50);
    expect(Array.from(g.probability)).toEqual([0, 128, 255, 191]);
    expect(Array.from(g.classIds)).toEqual([0, 1, 1, 1]);
  });
  test('softmax with a background channel: 1 − p(background); ids by argmax; below the confidence, background and under 0.5', () => {
    // Three classes, background 0; cells: sure background, sure class 2, an even three-way split.
    const data = Float32Array.from([5, -5, 0, -5, -5, 0, -5, 5, 0]);
    const g = subjectGrid({ data, channels: 3, width: 3, height: 1 }, 3, 0, 50);
    expect(Array.from(g.classIds)).toEqual([0, 2, 0]);
    expect(g.probability[0]).toBeLessThan(3);
    expect(g.probability[1]).toBeGreaterThan(252);
    expect(g.probability[2]).toBeLessThan(128);
  });
});

test('tensorFromRgba: value tables per channel, channel order, grayscale as OpenCV', () => {
  const rgba = Uint8ClampedArray.from([10, 20, 30, 255, 200, 100, 0, 255]);
  const id = Float32Array.from({ length: 256 }, (_, v) => v);
  const half = Float32Array.from({ length: 256 }, (_, v) => v / 2);
  const bgr = tensorFromRgba(rgba, 2, [id, id, half], [2, 1, 0], false, new Float32Array(6));
  expect(Array.from(bgr)).toEqual([30, 0, 20, 100, 5, 100]);
  const gray = tensorFromRgba(rgba, 2, [id, id, id], [0, 0, 0], true, new Float32Array(6));
  // (10·9798 + 20·19235 + 30·3735 + 2^14) >> 15 = 18; (200·9798 + 100·19235 + 2^14) >> 15 = 119.
  expect(Array.from(gray)).toEqual([18, 119, 18, 119, 18, 119]);
});

describe('TemporalSmoother', () => {
  const still = new Uint8ClampedArray(4 * 9).fill(100);
  test('the first frame passes as it is; on a still picture each frame keeps `strength` of the past', () => {
    const s = new TemporalSmoother();
    expect(Array.from(s.smooth(new Uint8Array(9).fill(200), still, 3, 3, 0.75))).toEqual(new Array(9).fill(200));
    // 200 + 0.25·(0 − 200) = 150, then 150 + 0.25·(0 − 150) = 112.5 → 113.
    expect(s.smooth(new Uint8Array(9), still, 3, 3, 0.75)[4]).toBe(150);
    expect(s.smooth(new Uint8Array(9), still, 3, 3, 0.75)[4]).toBe(113);
  });
  test('where the picture moves, the new frame is taken as it is (no ghost); strength 0 is the raw mask', () => {
    const s = new TemporalSmoother();
    s.smooth(new Uint8Array(9).fill(255), still, 3, 3, 0.9);
    const moved = new Uint8ClampedArray(4 * 9).fill(160);
    expect(Array.from(s.smooth(new Uint8Array(9), moved, 3, 3, 0.9))).toEqual(new Array(9).fill(0));
    const raw = new TemporalSmoother();
    raw.smooth(new Uint8Array(9).fill(255), still, 3, 3, 0);
    expect(raw.smooth(new Uint8Array(9).fill(7), still, 3, 3, 0)[0]).toBe(7);
  });
  test('motionOf averages |Δ| over 3 × 3: one noisy cell of +9 reads as 1 in its neighbours', () => {
    const before = new Float32Array(9);
    const after = new Float32Array(9);
    after[4] = 9;
    const m = motionOf(before, after, 3, 3, new Float32Array(9));
    expect(m[4]).toBe(1);
    expect(m[0]).toBe(9 / 4);
  });
});

describe('refineCoverage (joint bilateral upsampling)', () => {
  test('a flat probability stays flat; outside the crop is background', () => {
    const grid = { probability: new Uint8Array(16).fill(200), width: 4, height: 4 };
    const map = {
      ...gridMap(meta({ originalWidth: 8, originalHeight: 8, cropWidth: 8, cropHeight: 8, inputWidth: 4, inputHeight: 4 }), 4, 4),
    };
    const low = new Uint8ClampedArray(64).fill(50);
    const high = new Uint8ClampedArray(8 * 8 * 4).fill(50);
    expect(Array.from(refineCoverage(grid, map, low, high, 8, 8, 8, 8))).toEqual(new Array(64).fill(200));
    const cropped = { ...map, crop: { x: 0, y: 0, width: 4, height: 8 } };
    const out = refineCoverage(grid, cropped, low, high, 8, 8, 8, 8);
    expect([out[0], out[3], out[4], out[7]]).toEqual([200, 200, 0, 0]);
  });
  test('the edge follows the picture: a pixel the colour of the subject takes the subject, where bilinear would give a half', () => {
    // Grid 2 cells across: left subject (255, dark), right background (0, light). The output pixel just
    // right of the middle is dark in the picture: guided, it is subject; bilinear would say about half.
    const grid = { probability: Uint8Array.from([255, 0]), width: 2, height: 1 };
    const map = gridMap(meta({ originalWidth: 8, originalHeight: 1, cropWidth: 8, cropHeight: 1, inputWidth: 2, inputHeight: 1 }), 2, 1);
    const low = Uint8ClampedArray.from([20, 20, 20, 255, 230, 230, 230, 255]);
    const high = new Uint8ClampedArray(8 * 4);
    for (let x = 0; x < 8; x++) high.fill(x <= 4 ? 20 : 230, x * 4, x * 4 + 3);
    const out = refineCoverage(grid, map, low, high, 8, 1, 8, 1);
    expect(out[4]).toBeGreaterThan(240);
    expect(out[5]).toBeLessThan(15);
  });
});

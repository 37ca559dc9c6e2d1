// guideAtGrid: the frame at the grid's resolution, read bilinearly from the half-size guide at each cell's
// centre, black outside the crop.
import { describe, expect, test } from 'vitest';
import { guideAtGrid, type FrameGuide } from '../../../src/video/video-model.js';

/** A guide whose red is 10·x + y + 1, green 100 + x, blue 200 + y, over a frame twice its size. */
function guide(width: number, height: number): FrameGuide {
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set([10 * x + y + 1, 100 + x, 200 + y, 255], (y * width + x) * 4);
  return { data, width, height, frameWidth: 2 * width, frameHeight: 2 * height };
}

const whole = (w: number, h: number) => ({ x: 0, y: 0, width: w, height: h });

describe('guideAtGrid', () => {
  test('a grid of the guide’s own size over the whole frame is the guide', () => {
    const g = guide(6, 4);
    // Grid x = frame x · 0.5: each cell's centre falls on a guide pixel's centre.
    const out = guideAtGrid(g, { scaleX: 0.5, offsetX: 0, scaleY: 0.5, offsetY: 0, crop: whole(12, 8) }, 6, 4);
    expect([...out]).toEqual([...g.data]);
  });

  test('a grid twice as dense reads between the guide’s pixels (bilinear), its edges clamped', () => {
    const g = guide(4, 2);
    const out = guideAtGrid(g, { scaleX: 1, offsetX: 0, scaleY: 1, offsetY: 0, crop: whole(8, 4) }, 8, 4);
    // Cell (3, 1): frame centre (3.5, 1.5), guide (1.25, 0.25): red 1 + 10·1.25 + 0.25 = 13.75 → 14.
    expect([...out.subarray((1 * 8 + 3) * 4, (1 * 8 + 3) * 4 + 4)]).toEqual([14, 101, 200, 255]);
    // Cell (0, 0): guide (−0.25, −0.25), clamped to pixel (0, 0).
    expect([...out.subarray(0, 4)]).toEqual([1, 100, 200, 255]);
    // Cell (7, 3): guide (3.25, 1.25), clamped to pixel (3, 1).
    expect([...out.subarray((3 * 8 + 7) * 4, (3 * 8 + 7) * 4 + 4)]).toEqual([32, 103, 201, 255]);
  });

  test('cells outside the crop are black, opaque', () => {
    const g = guide(6, 4);
    const out = guideAtGrid(g, { scaleX: 0.5, offsetX: 0, scaleY: 0.5, offsetY: 0, crop: { x: 4, y: 0, width: 8, height: 4 } }, 6, 4);
    for (let y = 0; y < 4; y++)
      for (let x = 0; x < 6; x++) {
        const o = (y * 6 + x) * 4;
        const inside = y < 2 && x >= 2;
        expect([...out.subarray(o, o + 4)]).toEqual(inside ? [...g.data.subarray(o, o + 4)] : [0, 0, 0, 255]);
      }
  });

  test('into the buffer of an earlier frame: every byte rewritten, as into a new one', () => {
    const g = guide(6, 4);
    const map = { scaleX: 0.5, offsetX: 0, scaleY: 0.5, offsetY: 0, crop: { x: 4, y: 0, width: 8, height: 4 } };
    const reuse = new Uint8ClampedArray(6 * 4 * 4).fill(77);
    const out = guideAtGrid(g, map, 6, 4, reuse);
    expect(out).toBe(reuse);
    expect([...out]).toEqual([...guideAtGrid(g, map, 6, 4)]);
  });
});

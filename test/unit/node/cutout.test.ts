import { describe, expect, test } from 'vitest';
import { cutoutRgba, maskAlpha } from '../../../src/cli/cutout.js';

// 12×5 image, class 2 (not background) from column 6 on, class 0 (background) left of it.
const width = 12;
const height = 5;
const image = { data: Uint8Array.from({ length: width * height * 3 }, (_, i) => (i * 7) % 256), width, height, channels: 3 as const };
const classIds = Uint8Array.from({ length: width * height }, (_, p) => (p % width >= 6 ? 2 : 0));

describe('cutoutRgba', () => {
  test('keeps the colours and takes alpha from the mask: 255 off the background, 0 on it', () => {
    const rgba = cutoutRgba(image, maskAlpha(classIds, 0));
    for (let p = 0; p < width * height; p++) {
      expect([...rgba.subarray(p * 4, p * 4 + 3)]).toEqual([...image.data.subarray(p * 3, p * 3 + 3)]);
      expect(rgba[p * 4 + 3]).toBe(classIds[p] === 0 ? 0 : 255);
    }
  });

  test('another background id: whatever is not it is kept', () => {
    const rgba = cutoutRgba(image, maskAlpha(classIds, 2));
    expect(rgba[3]).toBe(255);
    expect(rgba[(width - 1) * 4 + 3]).toBe(0);
  });

  test('feather r ramps alpha linearly over 2r+1 pixels across a straight edge, and leaves colours alone', () => {
    for (const r of [1, 2, 3]) {
      const rgba = cutoutRgba(image, maskAlpha(classIds, 0), r);
      for (let y = 0; y < height; y++) {
        for (let x = 0; x < width; x++) {
          // Columns x-r…x+r that are foreground (x ≥ 6); edge columns repeat past the border.
          let inside = 0;
          for (let k = x - r; k <= x + r; k++) if (Math.min(width - 1, Math.max(0, k)) >= 6) inside++;
          const p = y * width + x;
          expect(rgba[p * 4 + 3]).toBe(Math.round((255 * inside) / (2 * r + 1)));
          expect(rgba[p * 4]).toBe(image.data[p * 3]);
        }
      }
    }
  });

  test('a soft alpha is taken as it is', () => {
    const soft = Uint8Array.from({ length: width * height }, (_, p) => (p * 13) % 256);
    const rgba = cutoutRgba(image, soft);
    for (let p = 0; p < width * height; p++) expect(rgba[p * 4 + 3]).toBe(soft[p]);
  });

  test('RGBA input: the image’s own alpha and the subject’s multiply; the colours stay', () => {
    // The image's alpha 255, 128 and 0 in turn; the subject's from the mask (0 left of column 6, 255 from it) and a soft 102.
    const own = [255, 128, 0];
    const data = Uint8Array.from({ length: width * height * 4 }, (_, i) => (i % 4 === 3 ? own[(i >> 2) % 3]! : 9));
    const rgbaImage = { data, width, height, channels: 4 as const };
    const out = cutoutRgba(rgbaImage, maskAlpha(classIds, 0));
    for (let p = 0; p < width * height; p++) {
      expect(out[p * 4 + 3]).toBe(p % width >= 6 ? own[p % 3] : 0);
      expect(out[p * 4]).toBe(9);
    }
    const half = cutoutRgba(rgbaImage, new Uint8Array(width * height).fill(102));
    // 102 · 255 / 255, 102 · 128 / 255 = 51.2, 0.
    expect([half[3], half[7], half[11]]).toEqual([102, 51, 0]);
  });
});

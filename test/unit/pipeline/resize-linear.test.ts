import { describe, expect, test } from 'vitest';
import { planeOf, resizeLinear } from '../../../src/pipeline/index.js';
import { loadUint8, manifest } from '../../fixtures/reference/fixtures.js';

describe('resizeLinear matches cv2.resize(INTER_LINEAR) on 8-bit images', () => {
  for (const c of manifest.resize) {
    test(c.name, () => {
      const [h, w, channels] = c.src.shape;
      const [dh, dw] = c.dst.shape;
      // A plane, not planeOf's PixelImage: the reference's cases include gray (one channel).
      const out = resizeLinear({ data: loadUint8(c.src), width: w, height: h, channels, rowStride: w * channels, offset: 0 }, dw, dh);
      expect(Buffer.from(out).equals(Buffer.from(loadUint8(c.dst)))).toBe(true);
    });
  }

  test('drops alpha: an RGBA image resizes its colour channels as the RGB image would', () => {
    const c = manifest.resize.find((r) => r.src.shape[2] === 3)!;
    const [h, w] = c.src.shape;
    const rgb = loadUint8(c.src);
    const rgba = new Uint8Array(w * h * 4);
    for (let i = 0; i < w * h; i++) {
      rgba.set(rgb.subarray(i * 3, i * 3 + 3), i * 4);
      rgba[i * 4 + 3] = (i * 37) % 256;
    }
    const [dh, dw] = c.dst.shape;
    expect(resizeLinear(planeOf({ data: rgba, width: w, height: h, channels: 4 }), dw, dh)).toEqual(loadUint8(c.dst));
  });
});

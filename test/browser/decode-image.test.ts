// The worker's image decoding: an opaque image's pixels copied straight out of the decoded bitmap (a
// VideoFrame) are the bytes the canvas path gives, and images with alpha keep the canvas path.
import { describe, expect, test } from 'vitest';
import { draw, opaquePixels } from '../../workers/decode-image.js';

const url = (file: string) => `/test/fixtures/reference/data/${file}`;
const options = { imageOrientation: 'from-image', premultiplyAlpha: 'none', colorSpaceConversion: 'none' } as const;
const decoded = async (file: string) => createImageBitmap(await (await fetch(url(file))).blob(), options);

/** A JPEG with no EXIF orientation, made here: a gradient with detail in every channel. */
async function plainJpeg(): Promise<ImageBitmap> {
  const c = new OffscreenCanvas(131, 77);
  const ctx = c.getContext('2d')!;
  for (let x = 0; x < 131; x++) {
    ctx.fillStyle = `rgb(${(x * 7) % 256}, ${255 - x}, ${(x * x) % 256})`;
    ctx.fillRect(x, 0, 1, 77);
  }
  ctx.fillStyle = '#e6194b';
  ctx.beginPath();
  ctx.arc(60, 40, 25, 0, 2 * Math.PI);
  ctx.fill();
  return createImageBitmap(await c.convertToBlob({ type: 'image/jpeg', quality: 0.8 }), options);
}

describe('opaque images skip the canvas', () => {
  const images: [string, () => Promise<ImageBitmap>][] = [
    ['a PNG', () => decoded('shapes-300x200.png')],
    ['a WebP', () => decoded('shapes-71x53.webp')],
    ['a JPEG', plainJpeg],
  ];
  for (const [label, make] of images) {
    test(`${label}: the same RGBA bytes as drawing it on a canvas`, async () => {
      const bitmap = await make();
      const direct = await opaquePixels(bitmap);
      const canvas = draw(bitmap, bitmap.width, bitmap.height);
      bitmap.close();
      // Chromium has WebCodecs and converts to RGBA: the direct path is taken here.
      expect(direct).not.toBeNull();
      expect([direct!.width, direct!.height, direct!.channels]).toEqual([canvas.width, canvas.height, 4]);
      expect(direct!.data.length).toBe(canvas.data.length);
      let differing = 0;
      for (let i = 0; i < canvas.data.length; i++) if (direct!.data[i] !== canvas.data[i]) differing++;
      expect(differing).toBe(0);
    });
  }

  test('an EXIF-rotated JPEG is left to the canvas (the frame would carry its orientation unapplied)', async () => {
    const bitmap = await decoded('exif-rotated-120x80.jpg');
    expect([bitmap.width, bitmap.height]).toEqual([80, 120]);
    expect(await opaquePixels(bitmap)).toBeNull();
    bitmap.close();
  });

  test('an image with alpha is left to the canvas', async () => {
    const c = new OffscreenCanvas(8, 6);
    const ctx = c.getContext('2d')!;
    ctx.fillStyle = 'rgba(200, 40, 90, 0.5)';
    ctx.fillRect(0, 0, 8, 6);
    const bitmap = await createImageBitmap(await c.convertToBlob({ type: 'image/png' }), { premultiplyAlpha: 'none', colorSpaceConversion: 'none' });
    expect(await opaquePixels(bitmap)).toBeNull();
    bitmap.close();
  });
});

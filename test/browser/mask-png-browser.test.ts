// The hosted backend reads mask PNGs with Chromium's decoder (no PNG code on the main thread): it must
// give the bytes upng gives, for edgeseg's own masks and for masks written by other encoders.
import UPNG from 'upng-js';
import { describe, expect, test } from 'vitest';
import { decodeMaskPng, encodeMaskPng } from '../../src/payload/index.js';
import { decodeMaskPngInBrowser } from '../../src/payload/png-gray-browser.js';
import { regionMask } from '../helpers/masks.js';

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'no error',
    (e: { code?: string }) => e.code,
  );

describe('decodeMaskPngInBrowser', () => {
  for (const [w, h, classes] of [
    [1, 1, 2],
    [97, 61, 21],
    [640, 480, 5],
    [333, 1, 256],
  ] as const) {
    test(`edgeseg's ${w}×${h} mask with ${classes} classes: the same bytes as upng`, async () => {
      const ids = regionMask(w, h, classes, w + h);
      ids[ids.length - 1] = classes - 1;
      const png = encodeMaskPng(ids, w, h);
      expect(await decodeMaskPngInBrowser(png)).toEqual(decodeMaskPng(png));
      expect((await decodeMaskPngInBrowser(png)).classIds).toEqual(ids);
    });
  }

  test('a mask written by OpenCV (filtered rows, zlib from libpng): the same bytes as upng', async () => {
    const manifest = (await (await fetch('/models/shapes/samples/manifest.json')).json()) as {
      images: { mask: string; width: number; height: number }[];
    };
    for (const image of manifest.images.slice(0, 4)) {
      const png = new Uint8Array(await (await fetch(`/models/shapes/samples/${image.mask}`)).arrayBuffer());
      const decoded = await decodeMaskPngInBrowser(png);
      expect([decoded.width, decoded.height]).toEqual([image.width, image.height]);
      expect(decoded.classIds).toEqual(decodeMaskPng(png).classIds);
      expect(new Set(decoded.classIds).size).toBeGreaterThan(1);
    }
  });

  test('refuses an RGBA PNG, bytes that are not a PNG, and a truncated PNG with PAYLOAD_INVALID', async () => {
    const rgba = new Uint8Array(UPNG.encode([new Uint8Array(4 * 4 * 4).fill(200).buffer], 4, 4, 0));
    expect(await codeOf(decodeMaskPngInBrowser(rgba))).toBe('PAYLOAD_INVALID');
    expect(await codeOf(decodeMaskPngInBrowser(new Uint8Array([1, 2, 3, 4, 5])))).toBe('PAYLOAD_INVALID');
    const png = encodeMaskPng(regionMask(50, 50), 50, 50);
    expect(await codeOf(decodeMaskPngInBrowser(png.subarray(0, 40)))).toBe('PAYLOAD_INVALID');
  });
});

// The worker's image decoding: an opaque image's pixels copied straight out of the decoded bitmap (a
// VideoFrame) are the bytes the canvas path gives, and images with alpha keep the canvas path; a JPEG's
// planes from ImageDecoder, converted by edgeseg as libjpeg-turbo converts them, are the bytes of
// Chromium's own RGB decode. In an engine without these paths (test/engines/support.ts) the test checks
// that the worker takes its fallback there, and that the fallback gives the canvas's bytes.
import { describe, expect, test } from 'vitest';
import { server } from 'vitest/browser';
import { SUPPORT } from '../engines/support.js';
import type { EngineName } from '../engines/index.js';
import { ycbcrToRgb } from '../../src/pipeline/index.js';
import { decodeInWorker, draw, framePixels, jpegPlanes, opaquePixels } from '../../src/decode/decode-in-worker.js';
import { readImageHeader } from '../../src/decode/image-header.js';

const url = (file: string) => `/test/fixtures/reference/data/${file}`;
const options = { imageOrientation: 'from-image', premultiplyAlpha: 'none', colorSpaceConversion: 'none' } as const;
const decoded = async (file: string) => createImageBitmap(await (await fetch(url(file))).blob(), options);
const support = SUPPORT[server.browser as EngineName];

/** How many bytes of `a` (RGBA) differ from `b` (RGBA or RGB), over the first `channels` of each pixel. */
function differing(
  a: ArrayLike<number>,
  aChannels: number,
  b: ArrayLike<number>,
  bChannels: number,
  pixels: number,
  channels: number,
): number {
  let n = 0;
  for (let p = 0; p < pixels; p++) for (let c = 0; c < channels; c++) if (a[p * aChannels + c] !== b[p * bChannels + c]) n++;
  return n;
}

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
      // Chromium's VideoFrame copies to RGBA: the direct path is taken there; elsewhere the canvas is.
      expect(direct !== null).toBe(support.videoFrameCopy);
      if (direct) {
        expect([direct.width, direct.height, direct.channels]).toEqual([canvas.width, canvas.height, 4]);
        expect(direct.data.length).toBe(canvas.data.length);
        expect(differing(direct.data, 4, canvas.data, 4, canvas.width * canvas.height, 4)).toBe(0);
      }
      // Whichever path this engine takes, the worker's pixels are the canvas's.
      const { pixels } = await decodeInWorker({ kind: 'bitmap', bitmap: await make() }, 1e8);
      expect('kind' in pixels).toBe(false);
      const rgba = pixels as { data: Uint8ClampedArray; width: number; height: number; channels: number };
      expect([rgba.width, rgba.height]).toEqual([canvas.width, canvas.height]);
      expect(differing(rgba.data, rgba.channels, canvas.data, 4, canvas.width * canvas.height, Math.min(rgba.channels, 4))).toBe(0);
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
    const bitmap = await createImageBitmap(await c.convertToBlob({ type: 'image/png' }), {
      premultiplyAlpha: 'none',
      colorSpaceConversion: 'none',
    });
    expect(await opaquePixels(bitmap)).toBeNull();
    bitmap.close();
  });
});

describe('camera frames (YUV) skip the canvas where copyTo converts to RGBA', () => {
  /** A 4:2:0 frame of detailed planes: luma and chroma patterns that cover the whole code range. */
  function yuvFrame(format: 'I420' | 'NV12', colorSpace: VideoColorSpaceInit, width = 98, height = 66): VideoFrame {
    const luma = width * height;
    const [cw, ch] = [width / 2, height / 2];
    const data = new Uint8Array(luma + 2 * cw * ch);
    for (let i = 0; i < luma; i++) data[i] = (i * 7 + ((i / width) | 0) * 13) & 255;
    for (let i = 0; i < cw * ch; i++) {
      const [u, v] = [(i * 5 + 17) & 255, (i * 11 + 200) & 255];
      if (format === 'I420') [data[luma + i], data[luma + cw * ch + i]] = [u, v];
      else [data[luma + 2 * i], data[luma + 2 * i + 1]] = [u, v];
    }
    return new VideoFrame(data, { format, codedWidth: width, codedHeight: height, timestamp: 0, colorSpace });
  }
  const spaces: [string, VideoColorSpaceInit][] = [
    ['BT.601 limited range (a webcam)', { matrix: 'smpte170m', primaries: 'smpte170m', transfer: 'smpte170m', fullRange: false }],
    ['BT.709 limited range (HD video)', { matrix: 'bt709', primaries: 'bt709', transfer: 'bt709', fullRange: false }],
    ['BT.601 full range (JPEG-like)', { matrix: 'smpte170m', primaries: 'smpte170m', transfer: 'smpte170m', fullRange: true }],
  ];
  for (const format of ['I420', 'NV12'] as const) {
    for (const [label, space] of spaces) {
      test(`${format}, ${label}: the same RGBA bytes as drawing it on a canvas`, async () => {
        const frame = yuvFrame(format, space);
        const canvas = draw(frame, frame.displayWidth, frame.displayHeight);
        const direct = await framePixels(frame);
        expect(direct !== null).toBe(support.videoFrameCopy);
        if (direct) {
          expect([direct.width, direct.height, direct.channels]).toEqual([canvas.width, canvas.height, 4]);
          expect(differing(direct.data, 4, canvas.data, 4, canvas.width * canvas.height, 4)).toBe(0);
        }
        // The worker's pixels, whichever path it takes, are the canvas's; it closes the frame.
        const { pixels } = await decodeInWorker({ kind: 'frame', frame }, 1e8);
        const rgba = pixels as { data: Uint8ClampedArray; width: number; height: number; channels: number };
        expect([rgba.width, rgba.height, rgba.channels]).toEqual([canvas.width, canvas.height, 4]);
        expect(differing(rgba.data, 4, canvas.data, 4, canvas.width * canvas.height, 4)).toBe(0);
        expect(frame.format).toBeNull();
      });
    }
  }

  test('a frame with alpha, or shown at another size than it holds, is left to the canvas', async () => {
    const rgba = new Uint8Array(8 * 6 * 4).fill(128);
    const withAlpha = new VideoFrame(rgba, { format: 'RGBA', codedWidth: 8, codedHeight: 6, timestamp: 0 });
    expect(await framePixels(withAlpha)).toBeNull();
    withAlpha.close();
    const stretched = yuvFrame('I420', spaces[0]![1], 16, 12);
    const shown = new VideoFrame(stretched, { displayWidth: 32, displayHeight: 12 });
    expect(await framePixels(shown)).toBeNull();
    for (const f of [stretched, shown]) f.close();
  });
});

describe("a JPEG decoded to its planes gives the bytes of the browser's RGB decode (where ImageDecoder gives planes)", () => {
  // Made by test/fixtures/jpeg/make_jpegs.py.
  const jpeg = async (file: string) => new Uint8Array(await (await fetch(`/test/fixtures/jpeg/${file}`)).arrayBuffer());
  const taken: [string, string][] = [
    ['ycc420-97x61.jpg', '4:2:0, odd width and height'],
    ['ycc420-16x17.jpg', '4:2:0, the smallest size taken'],
    ['ycc422-97x61.jpg', '4:2:2'],
    ['ycc444-64x47.jpg', '4:4:4'],
    ['progressive-101x67.jpg', 'progressive 4:2:0'],
    ['exif-upright-70x50.jpg', 'EXIF orientation 1'],
  ];
  for (const [file, label] of taken) {
    test(`${label}: every RGB byte equal`, async () => {
      const bytes = await jpeg(file);
      const planes = await jpegPlanes(bytes, readImageHeader(bytes));
      const bitmap = await createImageBitmap(new Blob([bytes]), options);
      const canvas = draw(bitmap, bitmap.width, bitmap.height);
      bitmap.close();
      // Firefox's ImageDecoder gives BGRX frames, WebKitGTK has none: createImageBitmap decodes there.
      expect(planes !== null).toBe(support.jpegPlanes);
      const { pixels } = await decodeInWorker({ kind: 'bytes', bytes: bytes.slice() }, 1e8);
      if (planes) {
        const rgb = ycbcrToRgb(planes);
        expect([rgb.width, rgb.height]).toEqual([canvas.width, canvas.height]);
        expect(differing(rgb.data, 3, canvas.data, 4, rgb.width * rgb.height, 3)).toBe(0);
        // The worker takes this path for the image.
        expect(pixels).toMatchObject({ kind: 'ycbcr', width: rgb.width, height: rgb.height });
      } else {
        expect('kind' in pixels).toBe(false);
        const rgba = pixels as { data: Uint8ClampedArray; width: number; height: number; channels: number };
        expect([rgba.width, rgba.height]).toEqual([canvas.width, canvas.height]);
        expect(differing(rgba.data, rgba.channels, canvas.data, 4, canvas.width * canvas.height, 3)).toBe(0);
      }
    });
  }

  const left: [string, string, Partial<ReturnType<typeof readImageHeader>>][] = [
    ['exif-rotated-70x50.jpg', 'an EXIF orientation to apply', { orientation: 6, components: 3 }],
    ['exif-rotated-120x80.jpg', 'an EXIF orientation to apply (camera-written)', { orientation: 6, components: 3 }],
    ['gray-50x40.jpg', 'one component', { components: 1 }],
    ['cmyk-40x30.jpg', 'four components', { components: 4 }],
    ['rgb-coded-48x40.jpg', 'components coded as RGB (Adobe transform 0), not YCbCr', { components: 3 }],
  ];
  for (const [file, label, header] of left) {
    test(`${label}: left to createImageBitmap`, async () => {
      const bytes = file === 'exif-rotated-120x80.jpg' ? new Uint8Array(await (await fetch(url(file))).arrayBuffer()) : await jpeg(file);
      expect(readImageHeader(bytes)).toMatchObject(header);
      expect(await jpegPlanes(bytes, readImageHeader(bytes))).toBeNull();
      const { pixels } = await decodeInWorker({ kind: 'bytes', bytes }, 1e8);
      expect('kind' in pixels).toBe(false);
    });
  }
});

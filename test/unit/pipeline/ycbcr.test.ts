// A JPEG's planes to RGB (src/pipeline/ycbcr.ts). That these are Chromium's decoded bytes is checked in
// the browser (test/browser/decode-image.test.ts, against createImageBitmap); here: the conversion
// against a pixel-by-pixel statement of libjpeg-turbo's formulas, and preprocessing that converts rows
// on demand against preprocessing of the image converted whole.
import { describe, expect, test } from 'vitest';
import { preprocess, ycbcrRows, ycbcrToRgb, type PreprocessSpec, type YCbCrImage } from '../../../src/pipeline/index.js';

let seed = 11;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;

/** Planes with padded strides in one buffer, as ImageDecoder lays them out: smooth areas and noise. */
function planes(width: number, height: number, chroma: YCbCrImage['chroma']): YCbCrImage {
  const cw = Math.ceil(width / chroma.h);
  const ch = Math.ceil(height / chroma.v);
  const strides = [width + 5, cw + 3, cw + 3];
  const sizes = [strides[0]! * height, strides[1]! * ch, strides[2]! * ch];
  const data = new Uint8Array(7 + sizes[0]! + sizes[1]! + sizes[2]!);
  for (let i = 0; i < data.length; i++) data[i] = random() < 0.5 ? (i * 37) % 256 : Math.floor(random() * 256);
  const plane = (k: number) => ({ data, offset: 7 + sizes.slice(0, k).reduce((a, b) => a + b, 0), stride: strides[k]! });
  return { kind: 'ycbcr', width, height, chroma, y: plane(0), cb: plane(1), cr: plane(2) };
}

/** libjpeg-turbo's fancy upsampling and YCbCr → RGB, one output pixel at a time. */
function rgbAt(img: YCbCrImage, x: number, y: number): [number, number, number] {
  const { h, v } = img.chroma;
  const cw = Math.ceil(img.width / h);
  const ch = Math.ceil(img.height / v);
  const sample = (p: YCbCrImage['cb'], cx: number, cy: number) =>
    p.data[p.offset + Math.min(Math.max(cy, 0), ch - 1) * p.stride + Math.min(Math.max(cx, 0), cw - 1)]!;
  const upsampled = (p: YCbCrImage['cb']) => {
    if (h === 1) return sample(p, x, y);
    const cx = x >> 1;
    const side = x & 1 ? cx + 1 : cx - 1;
    if (v === 1) return (3 * sample(p, cx, y) + sample(p, side, y) + (x & 1 ? 2 : 1)) >> 2;
    const cy = y >> 1;
    const other = y & 1 ? cy + 1 : cy - 1;
    const column = (c: number) => 3 * sample(p, c, cy) + sample(p, c, other);
    return (3 * column(cx) + column(side) + (x & 1 ? 7 : 8)) >> 4;
  };
  const fix = (k: number) => Math.floor(k * 65536 + 0.5);
  const l = img.y.data[img.y.offset + y * img.y.stride + x]!;
  const cb = upsampled(img.cb) - 128;
  const cr = upsampled(img.cr) - 128;
  const clamp = (n: number) => Math.min(Math.max(n, 0), 255);
  return [
    clamp(l + ((fix(1.402) * cr + 32768) >> 16)),
    clamp(l + ((-fix(0.34414) * cb + 32768 - fix(0.71414) * cr) >> 16)),
    clamp(l + ((fix(1.772) * cb + 32768) >> 16)),
  ];
}

describe('YCbCr planes to RGB as libjpeg-turbo converts them', () => {
  const layouts: YCbCrImage['chroma'][] = [
    { h: 2, v: 2 },
    { h: 2, v: 1 },
    { h: 1, v: 1 },
  ];
  for (const chroma of layouts) {
    for (const [w, hgt] of [
      [37, 23],
      [16, 16],
      [40, 31],
    ] as const) {
      test(`h${chroma.h}v${chroma.v}, ${w}×${hgt}: every pixel`, () => {
        const img = planes(w, hgt, chroma);
        const rgb = ycbcrToRgb(img);
        expect([rgb.width, rgb.height, rgb.channels]).toEqual([w, hgt, 3]);
        const wrong: string[] = [];
        for (let y = 0; y < hgt; y++) {
          for (let x = 0; x < w; x++) {
            const got = Array.from(rgb.data.subarray((y * w + x) * 3, (y * w + x) * 3 + 3));
            const want = rgbAt(img, x, y);
            if (got.join() !== want.join()) wrong.push(`(${x}, ${y}): ${got.join()} ≠ ${want.join()}`);
          }
        }
        expect(wrong.slice(0, 5)).toEqual([]);
      });
    }
  }

  test('neutral chroma gives gray; rows read out of order are the same rows', () => {
    const img = planes(20, 18, { h: 2, v: 2 });
    for (const p of [img.cb, img.cr]) for (let i = p.offset; i < p.offset + p.stride * 9; i++) p.data[i] = 128;
    const row = ycbcrRows(img);
    const first = Array.from(row(5));
    for (let x = 0; x < 20; x++)
      expect(first.slice(x * 3, x * 3 + 3)).toEqual(Array(3).fill(img.y.data[img.y.offset + 5 * img.y.stride + x]));
    row(17);
    row(0);
    expect(Array.from(row(5))).toEqual(first);
  });
});

describe('preprocessing converts only the rows the resize reads, to the same tensor', () => {
  const base: PreprocessSpec = {
    staticCrop: null,
    grayscale: false,
    contrast: null,
    resize: { mode: 'stretch', width: 24, height: 20, paddingValue: 0 },
    colorMode: 'rgb',
    scalingFactor: 255,
    normalization: { mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] },
  };
  const specs: [string, PreprocessSpec][] = [
    ['stretch', base],
    ['letterbox', { ...base, resize: { ...base.resize, mode: 'letterbox', paddingValue: 127 } }],
    ['static crop, BGR', { ...base, staticCrop: { xMin: 10, yMin: 20, xMax: 85, yMax: 90 }, colorMode: 'bgr' }],
    ['upscaling', { ...base, resize: { ...base.resize, width: 96, height: 80 } }],
    ['grayscale', { ...base, grayscale: true }],
    ['histogram equalisation', { ...base, contrast: 'histogram-equalization' }],
    ['centre crop', { ...base, resize: { ...base.resize, mode: 'center-crop' } }],
  ];
  for (const chroma of [
    { h: 2, v: 2 },
    { h: 2, v: 1 },
    { h: 1, v: 1 },
  ] as const) {
    const img = planes(83, 61, chroma);
    const whole = ycbcrToRgb(img);
    for (const [label, spec] of specs) {
      test(`h${chroma.h}v${chroma.v}, ${label}`, () => {
        const lazy = preprocess(img, spec);
        const converted = preprocess(whole, spec);
        expect(lazy.meta).toEqual(converted.meta);
        expect(Array.from(lazy.tensor)).toEqual(Array.from(converted.tensor));
      });
    }
  }
});

// A JPEG's decoded planes (Y, Cb, Cr; chroma at full, half-width or half-size resolution) to RGB, as
// libjpeg-turbo turns them into RGB: "fancy" (triangle-filter) upsampling of the chroma planes, then
// the fixed-point YCbCr → RGB tables of jdcolor.c. Chromium decodes JPEGs with libjpeg-turbo; a browser
// that hands out the planes (WebCodecs' ImageDecoder: I420, I422, I444) therefore gives the same RGB
// bytes through this code as through its own RGB decode, which the browser tests check. Rows are
// converted one at a time, on demand: resizing a large photo to a network input reads a fraction of them.
import type { PixelImage } from './types.js';

/** One 8-bit plane: `stride` values per row, the first at `offset`. */
export interface SamplePlane {
  data: Uint8Array;
  offset: number;
  stride: number;
}

/** A JPEG's planes at the image's size; chroma subsampled by `chroma.h` across and `chroma.v` down. */
export interface YCbCrImage {
  kind: 'ycbcr';
  width: number;
  height: number;
  y: SamplePlane;
  cb: SamplePlane;
  cr: SamplePlane;
  chroma: { h: 1 | 2; v: 1 | 2 };
}

export const isYCbCr = (image: PixelImage | YCbCrImage): image is YCbCrImage => 'kind' in image && image.kind === 'ycbcr';

// jdcolor.c's build_ycc_rgb_table (SCALEBITS 16; the shifts are arithmetic, as RIGHT_SHIFT is there).
const SCALEBITS = 16;
const ONE_HALF = 1 << (SCALEBITS - 1);
const FIX = (x: number) => Math.floor(x * (1 << SCALEBITS) + 0.5);
const CR_R = new Int32Array(256);
const CB_B = new Int32Array(256);
const CR_G = new Int32Array(256);
const CB_G = new Int32Array(256);
for (let i = 0; i < 256; i++) {
  const x = i - 128;
  CR_R[i] = (FIX(1.402) * x + ONE_HALF) >> SCALEBITS;
  CB_B[i] = (FIX(1.772) * x + ONE_HALF) >> SCALEBITS;
  CR_G[i] = -FIX(0.71414) * x;
  CB_G[i] = -FIX(0.34414) * x + ONE_HALF;
}
// range_limit: sums below 0 or above 255 clamp. Indexed with an offset of 256 (sums lie in [-227, 480]).
const LIMIT = new Uint8Array(1024);
for (let i = 0; i < 1024; i++) LIMIT[i] = Math.min(Math.max(i - 256, 0), 255);

/**
 * A reader of RGB rows: `row(y)` returns image row y as `width × 3` bytes (R, G, B), in a buffer that the
 * next call reuses.
 */
export function ycbcrRows(image: YCbCrImage): (y: number) => Uint8Array {
  const { width, height, chroma } = image;
  const chromaWidth = Math.ceil(width / chroma.h);
  const chromaHeight = Math.ceil(height / chroma.v);
  const rgb = new Uint8Array(width * 3);
  const cb = new Uint8Array(chromaWidth * chroma.h);
  const cr = new Uint8Array(chromaWidth * chroma.h);
  const sums = new Int32Array(chromaWidth);
  const upsample = (plane: SamplePlane, y: number, out: Uint8Array) => {
    if (chroma.v === 2) {
      // h2v2: each output row weighs its chroma row 3:1 with the nearer neighbour row (above for even
      // rows, below for odd ones; the edge rows stand in for the missing ones), then across 3:1 again,
      // with jdsample.c's alternating rounding biases (8 and 7).
      const near = plane.offset + (y >> 1) * plane.stride;
      const farRow = y & 1 ? Math.min((y >> 1) + 1, chromaHeight - 1) : Math.max((y >> 1) - 1, 0);
      const far = plane.offset + farRow * plane.stride;
      for (let x = 0; x < chromaWidth; x++) sums[x] = plane.data[near + x]! * 3 + plane.data[far + x]!;
      across(sums, chromaWidth, out, 4, 8, 7);
    } else if (chroma.h === 2) {
      // h2v1: across only, 3:1 with biases 1 and 2.
      const at = plane.offset + y * plane.stride;
      for (let x = 0; x < chromaWidth; x++) sums[x] = plane.data[at + x]!;
      across(sums, chromaWidth, out, 2, 1, 2);
    } else {
      out.set(plane.data.subarray(plane.offset + y * plane.stride, plane.offset + y * plane.stride + width));
    }
  };
  return (y) => {
    upsample(image.cb, y, cb);
    upsample(image.cr, y, cr);
    const { data: luma, offset, stride } = image.y;
    for (let x = 0, i = offset + y * stride, o = 0; x < width; x++, i++, o += 3) {
      const l = luma[i]! + 256;
      const b = cb[x]!;
      const r = cr[x]!;
      rgb[o] = LIMIT[l + CR_R[r]!]!;
      rgb[o + 1] = LIMIT[l + ((CB_G[b]! + CR_G[r]!) >> SCALEBITS)]!;
      rgb[o + 2] = LIMIT[l + CB_B[b]!]!;
    }
    return rgb;
  };
}

/**
 * jdsample.c's horizontal triangle filter over one row of (column) sums: output pixel 2x weighs sum x
 * 3:1 with sum x − 1, pixel 2x + 1 with sum x + 1, with the rounding biases `even` and `odd`. `shift`
 * is 4 for h2v2 (sums of 4 × sample) and 2 for h2v1. jdsample.c writes the edge pixels with formulas of
 * their own ((4·sum + bias) >> shift for h2v2, the sample itself for h2v1); repeating the edge sum here
 * gives the same values. (It reads past the row when a chroma row is one sample wide: the worker
 * leaves images that small to the browser's own decode.)
 */
function across(sums: Int32Array, n: number, out: Uint8Array, shift: 2 | 4, even: number, odd: number): void {
  for (let x = 0; x < n; x++) {
    const here = sums[x]! * 3;
    out[2 * x] = (here + sums[x > 0 ? x - 1 : 0]! + even) >> shift;
    out[2 * x + 1] = (here + sums[x < n - 1 ? x + 1 : n - 1]! + odd) >> shift;
  }
}

/** The whole image as RGB, for the steps that read every pixel (grayscale, contrast, centre crop). */
export function ycbcrToRgb(image: YCbCrImage): PixelImage {
  const { width, height } = image;
  const data = new Uint8Array(width * height * 3);
  const row = ycbcrRows(image);
  for (let y = 0; y < height; y++) data.set(row(y), y * width * 3);
  return { data, width, height, channels: 3 };
}

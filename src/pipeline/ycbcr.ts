// A JPEG's decoded planes (Y, Cb, Cr; chroma at full, half-width or half-size resolution) to RGB, as
// libjpeg-turbo turns them into RGB: "fancy" (triangle-filter) upsampling of the chroma planes, then
// the fixed-point YCbCr → RGB tables of jdcolor.c. Chromium decodes JPEGs with libjpeg-turbo; a browser
// that hands out the planes (WebCodecs' ImageDecoder: I420, I422, I444) therefore gives the same RGB
// bytes through this code as through its own RGB decode, which the browser tests check. Rows are
// converted one at a time, on demand, and only at the columns asked for: resizing a large photo to a
// network input reads a fraction of its pixels.
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
 * next call reuses; `row(y, chromaColumns)` converts only the pixels over those chroma columns (for
 * 4:2:0 and 4:2:2, pixels 2c and 2c + 1), leaving the rest of the buffer stale.
 *
 * Chroma upsampling is jdsample.c's "fancy" triangle filter. Down (h2v2 only): an output row weighs its
 * chroma row 3:1 with the nearer neighbour row (above for even rows, below for odd ones; the first and
 * last rows stand in for the missing ones), giving column sums. Across (h2v2, h2v1): output pixel 2x
 * weighs sum x 3:1 with sum x − 1, pixel 2x + 1 with sum x + 1, with jdsample.c's alternating rounding
 * biases (8 and 7 over sums of 16ths for h2v2, 1 and 2 over quarters for h2v1). jdsample.c writes the edge
 * pixels with formulas of their own; repeating the edge sum gives the same values. (It reads past the row
 * where a chroma row is one sample wide: the worker leaves images that small to the browser's decode.)
 */
export function ycbcrRows(image: YCbCrImage): (y: number, chromaColumns?: Int32Array) => Uint8Array {
  const { width, height, chroma } = image;
  const chromaWidth = Math.ceil(width / chroma.h);
  const chromaHeight = Math.ceil(height / chroma.v);
  const rgb = new Uint8Array(width * 3);
  const sumCb = new Int32Array(chromaWidth);
  const sumCr = new Int32Array(chromaWidth);
  const { data: luma, offset: lumaOffset, stride: lumaStride } = image.y;
  const { data: cbData, offset: cbOffset, stride: cbStride } = image.cb;
  const { data: crData, offset: crOffset, stride: crStride } = image.cr;
  const down = chroma.v === 2;
  const shift = down ? 4 : 2;
  const even = down ? 8 : 1;
  const odd = down ? 7 : 2;

  /** Column sums of output row y (h2v2: 3 × near + far; otherwise the samples themselves). */
  const sums = (y: number) => {
    const near = down ? y >> 1 : y;
    if (!down) {
      for (let x = 0, b = cbOffset + near * cbStride, r = crOffset + near * crStride; x < chromaWidth; x++) {
        sumCb[x] = cbData[b + x]!;
        sumCr[x] = crData[r + x]!;
      }
      return;
    }
    const far = y & 1 ? Math.min(near + 1, chromaHeight - 1) : Math.max(near - 1, 0);
    const b0 = cbOffset + near * cbStride;
    const b1 = cbOffset + far * cbStride;
    const r0 = crOffset + near * crStride;
    const r1 = crOffset + far * crStride;
    for (let x = 0; x < chromaWidth; x++) {
      sumCb[x] = cbData[b0 + x]! * 3 + cbData[b1 + x]!;
      sumCr[x] = crData[r0 + x]! * 3 + crData[r1 + x]!;
    }
  };

  // Pixels are converted by chroma column: pixel c (4:4:4), or pixels 2c and 2c + 1.
  const perChroma = chroma.h;
  let all: Int32Array | null = null;
  return (y, chromaColumns) => {
    sums(y);
    const row = lumaOffset + y * lumaStride;
    const cs = chromaColumns ?? (all ??= Int32Array.from({ length: chromaWidth }, (_, c) => c));
    for (let k = 0; k < cs.length; k++) {
      const c = cs[k]!;
      if (perChroma === 1) {
        pixel(rgb, c * 3, luma[row + c]!, sumCb[c]!, sumCr[c]!);
        continue;
      }
      const x = 2 * c;
      const left = c > 0 ? c - 1 : 0;
      const right = c < chromaWidth - 1 ? c + 1 : c;
      const cb3 = sumCb[c]! * 3;
      const cr3 = sumCr[c]! * 3;
      pixel(rgb, 3 * x, luma[row + x]!, (cb3 + sumCb[left]! + even) >> shift, (cr3 + sumCr[left]! + even) >> shift);
      if (x + 1 < width)
        pixel(rgb, 3 * x + 3, luma[row + x + 1]!, (cb3 + sumCb[right]! + odd) >> shift, (cr3 + sumCr[right]! + odd) >> shift);
    }
    return rgb;
  };
}

/** jdcolor.c's ycc_rgb_convert for one pixel, into out[o..o+2]. */
function pixel(out: Uint8Array, o: number, y: number, cb: number, cr: number): void {
  const l = y + 256;
  out[o] = LIMIT[l + CR_R[cr]!]!;
  out[o + 1] = LIMIT[l + ((CB_G[cb]! + CR_G[cr]!) >> SCALEBITS)]!;
  out[o + 2] = LIMIT[l + CB_B[cb]!]!;
}

/** The whole image as RGB, for the steps that read every pixel (grayscale, contrast, centre crop). */
export function ycbcrToRgb(image: YCbCrImage): PixelImage {
  const { width, height } = image;
  const data = new Uint8Array(width * height * 3);
  const row = ycbcrRows(image);
  for (let y = 0; y < height; y++) data.set(row(y), y * width * 3);
  return { data, width, height, channels: 3 };
}

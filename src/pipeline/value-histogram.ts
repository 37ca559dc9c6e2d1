// Counts of each 8-bit value over the colour channels of a plane: what the contrast steps are built on.
import type { ImagePlane } from './image-plane.js';

/**
 * Histogram of the values of all colour channels (alpha excluded). A 1-channel plane stands for the
 * reference's gray image stacked to three channels, so each of its values counts three times.
 */
export function valueHistogram(src: ImagePlane): { counts: Float64Array; total: number } {
  const counts = new Float64Array(256);
  const { data, width, height, channels, rowStride, offset } = src;
  const cn = channels === 1 ? 1 : 3;
  for (let y = 0; y < height; y++) {
    let i = offset + y * rowStride;
    for (let x = 0; x < width; x++, i += channels) {
      for (let c = 0; c < cn; c++) counts[data[i + c]!]!++;
    }
  }
  const repeat = cn === 1 ? 3 : 1;
  if (repeat !== 1) for (let v = 0; v < 256; v++) counts[v]! *= repeat;
  return { counts, total: width * height * 3 };
}

/** Applies a 256-entry table to the colour channels, into a new dense plane of 1 or 3 channels. */
export function mapValues(src: ImagePlane, table: Uint8Array): ImagePlane {
  const { data, width, height, channels, rowStride, offset } = src;
  const cn = channels === 1 ? 1 : 3;
  const out = new Uint8Array(width * height * cn);
  for (let y = 0, o = 0; y < height; y++) {
    let i = offset + y * rowStride;
    for (let x = 0; x < width; x++, i += channels) {
      for (let c = 0; c < cn; c++) out[o++] = table[data[i + c]!]!;
    }
  }
  return { data: out, width, height, channels: cn, rowStride: width * cn, offset: 0 };
}

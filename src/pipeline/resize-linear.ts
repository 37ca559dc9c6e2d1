// OpenCV's cv2.resize(INTER_LINEAR) on 8-bit images, reproduced bit for bit.
//
// OpenCV resizes 8-bit images in fixed point: 11-bit weights (INTER_RESIZE_COEF_SCALE = 2048) computed
// from float32 source coordinates with half-pixel centres, a horizontal pass that keeps exact integer
// sums, and a vertical pass. Its vectorised vertical pass (VResizeLinearVec_32s8u, which the x86 builds
// use for every pixel) rounds differently from the textbook `(v + 2^21) >> 22`:
//   ((((S0 >> 4) * b0) >> 16) + (((S1 >> 4) * b1) >> 16) + 2) >> 2
// Horizontally the source index is clamped and the fraction zeroed at the borders; vertically only the
// row index is clamped, so border rows mix a row with itself under weights that may sum to 2047 or 2049.
// test/fixtures/reference/make_fixtures.py checks this against cv2 on many sizes.
import type { ImagePlane } from './image-plane.js';

const COEF_SCALE = 2048;

export interface LinearAxis {
  /** First source index of each destination index. */
  index0: Int32Array;
  /** Second source index (clamped to the axis). */
  index1: Int32Array;
  weight0: Int32Array;
  weight1: Int32Array;
}

/** OpenCV's fixed-point coefficients for one axis. `clampFraction`: true horizontally, false vertically. */
export function linearAxis(srcSize: number, dstSize: number, clampFraction: boolean): LinearAxis {
  const scale = 1 / (dstSize / srcSize);
  const index0 = new Int32Array(dstSize);
  const index1 = new Int32Array(dstSize);
  const weight0 = new Int32Array(dstSize);
  const weight1 = new Int32Array(dstSize);
  for (let d = 0; d < dstSize; d++) {
    let f = Math.fround((d + 0.5) * scale - 0.5);
    let s = Math.floor(f);
    f = Math.fround(f - s);
    if (clampFraction) {
      if (s < 0) {
        f = 0;
        s = 0;
      }
      if (s >= srcSize - 1) {
        f = 0;
        s = srcSize - 1;
      }
    }
    index0[d] = Math.min(Math.max(s, 0), srcSize - 1);
    index1[d] = Math.min(Math.max(s + 1, 0), srcSize - 1);
    weight0[d] = roundToEven(Math.fround(Math.fround(1 - f) * COEF_SCALE));
    weight1[d] = roundToEven(Math.fround(f * COEF_SCALE));
  }
  return { index0, index1, weight0, weight1 };
}

/**
 * Resizes `src` to `dstWidth × dstHeight` and hands each destination row (dense, `src.channels` values
 * per pixel, only the first `channels` used) to `onRow`. The row buffer is reused between calls.
 * Only the colour channels are resized: `channels` is 1 or 3 (alpha is dropped).
 */
export function resizeLinearRows(src: ImagePlane, dstWidth: number, dstHeight: number, onRow: (y: number, row: Uint8Array) => void): void {
  const cn = src.channels === 1 ? 1 : 3;
  const xs = linearAxis(src.width, dstWidth, true);
  const ys = linearAxis(src.height, dstHeight, false);
  const rowLength = dstWidth * cn;
  // Horizontally resized source rows, cached by source row index (the vertical pass walks rows in order).
  const rows = [new Int32Array(rowLength), new Int32Array(rowLength)];
  const rowOf = [-1, -1];
  const out = new Uint8Array(rowLength);
  // A plane that computes its rows is told which columns the horizontal pass reads.
  const readRow = src.rows?.(columnsRead(xs));

  const horizontal = (sy: number): Int32Array => {
    if (rowOf[0] === sy) return rows[0]!;
    if (rowOf[1] === sy) return rows[1]!;
    // Replace the row that is not the other one we need now (rows advance monotonically).
    const slot = rowOf[0]! < rowOf[1]! ? 0 : 1;
    const buf = rows[slot]!;
    rowOf[slot] = sy;
    const { channels } = src;
    const data = readRow ? readRow(sy) : src.data;
    const base = readRow ? src.offset : src.offset + sy * src.rowStride;
    // cn is 3 (colour) or 1 (gray): each written out, the colour one being the common case.
    if (cn === 3) {
      for (let dx = 0, o = 0; dx < dstWidth; dx++, o += 3) {
        const p0 = base + xs.index0[dx]! * channels;
        const p1 = base + xs.index1[dx]! * channels;
        const a0 = xs.weight0[dx]!;
        const a1 = xs.weight1[dx]!;
        buf[o] = data[p0]! * a0 + data[p1]! * a1;
        buf[o + 1] = data[p0 + 1]! * a0 + data[p1 + 1]! * a1;
        buf[o + 2] = data[p0 + 2]! * a0 + data[p1 + 2]! * a1;
      }
      return buf;
    }
    for (let dx = 0; dx < dstWidth; dx++) {
      buf[dx] = data[base + xs.index0[dx]! * channels]! * xs.weight0[dx]! + data[base + xs.index1[dx]! * channels]! * xs.weight1[dx]!;
    }
    return buf;
  };

  for (let dy = 0; dy < dstHeight; dy++) {
    const sy0 = ys.index0[dy]!;
    const sy1 = ys.index1[dy]!;
    const s0 = horizontal(sy0);
    const s1 = sy1 === sy0 ? s0 : horizontal(sy1);
    const b0 = ys.weight0[dy]!;
    const b1 = ys.weight1[dy]!;
    for (let i = 0; i < rowLength; i++) {
      const v = ((((s0[i]! >> 4) * b0) >> 16) + (((s1[i]! >> 4) * b1) >> 16) + 2) >> 2;
      out[i] = v < 0 ? 0 : v > 255 ? 255 : v;
    }
    onRow(dy, out);
  }
}

/** The source columns a horizontal pass reads, increasing, each once (both index arrays are monotone). */
function columnsRead(xs: LinearAxis): Int32Array {
  const list: number[] = [];
  for (let d = 0; d < xs.index0.length; d++) {
    for (const s of [xs.index0[d]!, xs.index1[d]!]) if (list.length === 0 || s > list[list.length - 1]!) list.push(s);
  }
  return Int32Array.from(list);
}

/** The whole resized image, dense, 1 or 3 channels (see resizeLinearRows). */
export function resizeLinear(src: ImagePlane, dstWidth: number, dstHeight: number): Uint8Array {
  const cn = src.channels === 1 ? 1 : 3;
  const out = new Uint8Array(dstWidth * dstHeight * cn);
  resizeLinearRows(src, dstWidth, dstHeight, (y, row) => out.set(row, y * dstWidth * cn));
  return out;
}

// cvRound on a float: to nearest, ties to even (the SSE conversion's default rounding).
function roundToEven(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

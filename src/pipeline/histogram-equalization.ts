// "Histogram Equalization": the reference's skimage.exposure.equalize_hist on img / 255 (float32),
// times 255, truncated to 8 bits. Only 256 inputs are possible, so it is a table built once per image.
import type { ImagePlane } from './image-plane.js';
import { mapValues, valueHistogram } from './value-histogram.js';

const f32 = Math.fround;
const BINS = 256;

export function equalizeHistogram(src: ImagePlane): ImagePlane {
  const { counts } = valueHistogram(src);
  let lo = 0;
  while (counts[lo] === 0) lo++;
  let hi = 255;
  while (counts[hi] === 0) hi--;
  // The float32 values the reference histograms: v / 255.
  const value = (v: number) => f32(v / 255);
  // np.histogram's range: (min, max), widened by 0.5 each way for a constant image (in float64).
  let first = value(lo);
  let last = value(hi);
  if (first === last) {
    first -= 0.5;
    last += 0.5;
  }
  // np.linspace(first, last, 257, dtype=float32): computed in float64, stored as float32.
  const step = (last - first) / BINS;
  const edges = new Float64Array(BINS + 1);
  for (let i = 0; i <= BINS; i++) edges[i] = f32(i * step + first);
  edges[BINS] = f32(last);
  const firstEdge = f32(first);
  const denom = f32(f32(last) - firstEdge);
  const hist = new Float64Array(BINS);
  for (let v = lo; v <= hi; v++) {
    if (counts[v] === 0) continue;
    const x = value(v);
    // np.histogram's uniform-bin search, in float32, with its two corrections.
    let index = Math.trunc(f32(f32(f32(x - firstEdge) / denom) * BINS));
    if (index === BINS) index--;
    if (x < edges[index]!) index--;
    if (x >= edges[index + 1]! && index !== BINS - 1) index++;
    hist[index]! += counts[v]!;
  }
  const centers = new Float64Array(BINS);
  for (let i = 0; i < BINS; i++) centers[i] = f32(f32(edges[i]! + edges[i + 1]!) / 2);
  const cdf = new Float64Array(BINS);
  let running = 0;
  for (let i = 0; i < BINS; i++) cdf[i] = running += hist[i]!;
  for (let i = 0; i < BINS; i++) cdf[i] = f32(cdf[i]! / running);
  const table = new Uint8Array(256);
  for (let v = lo; v <= hi; v++) {
    const y = f32(interp(value(v), centers, cdf));
    table[v] = Math.trunc(f32(y * 255));
  }
  return mapValues(src, table);
}

// numpy.interp, as its C implementation computes it (float64, exact at the sample points).
function interp(x: number, xp: Float64Array, fp: Float64Array): number {
  const n = xp.length;
  if (x < xp[0]!) return fp[0]!;
  if (x >= xp[n - 1]!) return x === xp[n - 1]! ? fp[n - 1]! : fp[n - 1]!;
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (xp[mid]! <= x) lo = mid;
    else hi = mid;
  }
  if (xp[lo] === x) return fp[lo]!;
  const slope = (fp[lo + 1]! - fp[lo]!) / (xp[lo + 1]! - xp[lo]!);
  return slope * (x - xp[lo]!) + fp[lo]!;
}

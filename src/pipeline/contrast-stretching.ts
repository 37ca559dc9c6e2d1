// "Contrast Stretching": the reference's np.percentile(img, (2, 98)) then skimage rescale_intensity.
import type { ImagePlane } from './image-plane.js';
import { mapValues, valueHistogram } from './value-histogram.js';

export function stretchContrast(src: ImagePlane): ImagePlane {
  const { counts, total } = valueHistogram(src);
  const low = percentile(counts, total, 2);
  const high = percentile(counts, total, 98);
  const table = new Uint8Array(256);
  for (let v = 0; v < 256; v++) {
    // rescale_intensity on uint8 with in_range=(low, high): clip, scale to [0, 255] in float64, truncate.
    const clipped = Math.min(Math.max(v, low), high);
    const scaled = low === high ? clipped : ((clipped - low) / (high - low)) * 255 + 0;
    table[v] = Math.trunc(scaled);
  }
  return mapValues(src, table);
}

/** numpy.percentile(values, q) with its default linear method, from a histogram of 8-bit values. */
export function percentile(counts: Float64Array, total: number, q: number): number {
  const quantile = q / 100;
  // numpy's _compute_virtual_index(n, q, alpha=1, beta=1), operation for operation.
  const virtual = total * quantile + (1 + quantile * (1 - 1 - 1)) - 1;
  if (virtual >= total - 1) return kth(counts, total - 1);
  if (virtual < 0) return kth(counts, 0);
  const previous = Math.floor(virtual);
  const gamma = virtual - previous;
  const a = kth(counts, previous);
  const b = kth(counts, previous + 1);
  // numpy's _lerp: the formula switches ends at gamma 0.5 to stay monotonic.
  const diff = b - a;
  return gamma >= 0.5 ? b - diff * (1 - gamma) : a + diff * gamma;
}

// The k-th smallest value (0-based) of the multiset the histogram describes.
function kth(counts: Float64Array, k: number): number {
  let seen = 0;
  for (let v = 0; v < 256; v++) {
    seen += counts[v]!;
    if (seen > k) return v;
  }
  return 255;
}

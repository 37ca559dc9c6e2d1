// The image with its background made transparent: the mask as the alpha channel, optionally feathered.
import type { PixelImage } from '../pipeline/types.js';

/**
 * RGBA pixels: the image's colours, alpha 255 where the class is not background and 0 where it is.
 * `feather` (pixels, default 0) softens the edge with a box blur of that radius over the alpha, in two
 * separable passes with edge pixels repeated: across a straight edge alpha ramps linearly over
 * 2·feather + 1 pixels; pixels further than `feather` from any edge keep 0 or 255. Colours are never changed.
 */
export function cutoutRgba(image: PixelImage, classIds: Uint8Array, backgroundClassId: number, feather = 0): Uint8Array {
  const { width, height } = image;
  const n = width * height;
  const alpha = new Uint8Array(n);
  for (let p = 0; p < n; p++) alpha[p] = classIds[p] === backgroundClassId ? 0 : 255;
  const soft = feather > 0 ? boxBlur(alpha, width, height, Math.round(feather)) : alpha;
  const out = new Uint8Array(n * 4);
  for (let p = 0; p < n; p++) {
    const s = p * image.channels;
    out[p * 4] = image.data[s]!;
    out[p * 4 + 1] = image.data[s + 1]!;
    out[p * 4 + 2] = image.data[s + 2]!;
    out[p * 4 + 3] = soft[p]!;
  }
  return out;
}

/** A (2r+1)² box blur, rows then columns, with running sums (cost independent of r); integer sums, one rounding at the end. */
function boxBlur(values: Uint8Array, width: number, height: number, r: number): Uint8Array {
  const rows = new Uint32Array(width * height);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    const at = (x: number) => values[row + Math.min(width - 1, Math.max(0, x))]!;
    let sum = 0;
    for (let x = -r; x <= r; x++) sum += at(x);
    for (let x = 0; x < width; x++) {
      rows[row + x] = sum;
      sum += at(x + r + 1) - at(x - r);
    }
  }
  const out = new Uint8Array(width * height);
  const area = (2 * r + 1) * (2 * r + 1);
  for (let x = 0; x < width; x++) {
    const at = (y: number) => rows[Math.min(height - 1, Math.max(0, y)) * width + x]!;
    let sum = 0;
    for (let y = -r; y <= r; y++) sum += at(y);
    for (let y = 0; y < height; y++) {
      out[y * width + x] = Math.round(sum / area);
      sum += at(y + r + 1) - at(y - r);
    }
  }
  return out;
}

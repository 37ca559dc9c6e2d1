// The image with its background made transparent: the subject's alpha (soft, or the hard mask), optionally
// feathered, times the image's own alpha.
import type { PixelImage } from '../pipeline/types.js';

/** How a cutout's edge is drawn: `soft`, the model's probability refined against the image (`raw.alpha`); `hard`, the class-id mask. */
export type CutoutEdges = 'soft' | 'hard';

/** The class-id mask as an alpha: 255 where the class is not background, 0 where it is. */
export function maskAlpha(classIds: Uint8Array, backgroundClassId: number): Uint8Array {
  const alpha = new Uint8Array(classIds.length);
  for (let p = 0; p < classIds.length; p++) alpha[p] = classIds[p] === backgroundClassId ? 0 : 255;
  return alpha;
}

/**
 * RGBA pixels: the image's colours, with the subject's `alpha` (0–255, one per pixel: the soft alpha or
 * maskAlpha's) as their alpha, times the image's own alpha where it has one (an RGBA image: a pixel
 * transparent in the image stays transparent). `feather` (pixels, default 0) softens the subject's alpha
 * first with a box blur of that radius, in two separable passes with edge pixels repeated: across a
 * straight edge of a hard alpha it ramps linearly over 2·feather + 1 pixels; pixels further than `feather`
 * from any edge keep 0 or 255. Colours are never changed.
 */
export function cutoutRgba(image: PixelImage, alpha: Uint8Array, feather = 0): Uint8Array {
  const { width, height, channels } = image;
  const n = width * height;
  const soft = feather > 0 ? boxBlur(alpha, width, height, Math.round(feather)) : alpha;
  const out = new Uint8Array(n * 4);
  for (let p = 0; p < n; p++) {
    const s = p * channels;
    out[p * 4] = image.data[s]!;
    out[p * 4 + 1] = image.data[s + 1]!;
    out[p * 4 + 2] = image.data[s + 2]!;
    out[p * 4 + 3] = channels === 4 ? Math.round((soft[p]! * image.data[s + 3]!) / 255) : soft[p]!;
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

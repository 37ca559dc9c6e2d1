// The image with its class-id mask blended over it in the class colours, for people to look at.
import type { PixelImage } from '../pipeline/types.js';

/** RGB pixels: each non-background pixel moves `opacity` of the way to its class colour. */
export function overlayMask(
  image: PixelImage,
  classIds: Uint8Array,
  colors: readonly string[],
  backgroundClassId: number,
  opacity = 0.5,
): Uint8Array {
  const rgb = colors.map((c) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16)));
  const n = image.width * image.height;
  const out = new Uint8Array(n * 3);
  for (let p = 0; p < n; p++) {
    const id = classIds[p]!;
    for (let c = 0; c < 3; c++) {
      const v = image.data[p * image.channels + c]!;
      const color = rgb[id]?.[c];
      out[p * 3 + c] = id === backgroundClassId || color === undefined ? v : Math.round(v * (1 - opacity) + color * opacity);
    }
  }
  return out;
}

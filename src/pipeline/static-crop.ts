// The platform's static crop: a rectangle given in percent of the image, cut before anything else.
import { InvalidInputError } from '../errors/index.js';
import type { Rect } from './image-plane.js';
import type { PreprocessSpec } from './types.js';

/**
 * The crop rectangle in pixels, as the reference computes it (`int(pct / 100 * size)`, then a Python
 * slice, which clamps to the image). The whole image when there is no crop.
 */
export function staticCropRect(width: number, height: number, crop: PreprocessSpec['staticCrop']): Rect {
  if (crop === null) return { x: 0, y: 0, width, height };
  const x0 = clampSlice(Math.trunc((crop.xMin / 100) * width), width);
  const y0 = clampSlice(Math.trunc((crop.yMin / 100) * height), height);
  const x1 = clampSlice(Math.trunc((crop.xMax / 100) * width), width);
  const y1 = clampSlice(Math.trunc((crop.yMax / 100) * height), height);
  if (x1 <= x0 || y1 <= y0) {
    throw new InvalidInputError(
      'IMAGE_EMPTY',
      `the static crop (${crop.xMin}–${crop.xMax}% × ${crop.yMin}–${crop.yMax}%) of a ${width}×${height} image is empty`,
    );
  }
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

// A Python slice bound: negative counts from the end, and the result is clamped to [0, size].
function clampSlice(index: number, size: number): number {
  const i = index < 0 ? index + size : index;
  return Math.min(Math.max(i, 0), size);
}

// Image → network input: static crop, grayscale, contrast, resize, channel order, scale, normalise, NCHW.
import { InvalidInputError } from '../errors/index.js';
import { equalizeAdaptive } from './adaptive-equalization.js';
import { stretchContrast } from './contrast-stretching.js';
import { toGrayscale } from './grayscale.js';
import { equalizeHistogram } from './histogram-equalization.js';
import { planeOf, type ImagePlane } from './image-plane.js';
import { resizeGeometry } from './resize-geometry.js';
import { resizeLinearRows } from './resize-linear.js';
import { staticCropRect } from './static-crop.js';
import type { ContrastType, PixelImage, PreprocessMeta, PreprocessSpec } from './types.js';

const f32 = Math.fround;

const CONTRAST: Record<ContrastType, (src: ImagePlane) => ImagePlane> = {
  'contrast-stretching': stretchContrast,
  'histogram-equalization': equalizeHistogram,
  'adaptive-equalization': equalizeAdaptive,
};

/**
 * The network input for one image, `[1, 3, H, W]` float32, and what postprocessing needs to map the
 * output back. Pass `out` (length 3·H·W) to reuse a buffer between calls.
 */
export function preprocess(
  image: PixelImage,
  spec: PreprocessSpec,
  out?: Float32Array,
): { tensor: Float32Array; meta: PreprocessMeta } {
  const crop = staticCropRect(image.width, image.height, spec.staticCrop);
  let plane = planeOf(image, crop);
  if (spec.grayscale) plane = toGrayscale(plane);
  if (spec.contrast !== null) plane = CONTRAST[spec.contrast](plane);

  const { width: W, height: H } = spec.resize;
  const area = W * H;
  if (out !== undefined && out.length !== 3 * area) {
    throw new InvalidInputError('OPTION_INVALID', `the output buffer holds ${out.length} values, the input needs ${3 * area}`);
  }
  const tensor = out ?? new Float32Array(3 * area);
  const geometry = resizeGeometry(spec.resize, plane.width, plane.height);
  if (geometry.scaledWidth < 1 || geometry.scaledHeight < 1) {
    throw new InvalidInputError(
      'IMAGE_EMPTY',
      `a ${plane.width}×${plane.height} image letterboxed into ${W}×${H} leaves no pixels (${geometry.scaledWidth}×${geometry.scaledHeight})`,
    );
  }
  const toValue = valueFunctions(spec);
  // Tensor channel c reads plane channel order[c].
  const order = plane.channels === 1 ? [0, 0, 0] : spec.colorMode === 'rgb' ? [0, 1, 2] : [2, 1, 0];

  // Fill everything with the padding value first; the image overwrites its part.
  for (let c = 0; c < 3; c++) tensor.fill(toValue[c]!(geometry.fill), c * area, (c + 1) * area);

  const writeRow = (y: number, row: Uint8Array | Uint8ClampedArray, rowOffset: number, step: number) => {
    const dstRow = (geometry.dstY + y) * W + geometry.dstX;
    for (let c = 0; c < 3; c++) {
      const value = toValue[c]!;
      const base = c * area + dstRow;
      let i = rowOffset + order[c]!;
      for (let x = 0; x < geometry.copyWidth; x++, i += step) tensor[base + x] = value(row[i]!);
    }
  };

  if (spec.resize.mode === 'center-crop') {
    const step = plane.channels;
    for (let y = 0; y < geometry.copyHeight; y++) {
      const rowOffset = plane.offset + (geometry.srcY + y) * plane.rowStride + geometry.srcX * step;
      writeRow(y, plane.data, rowOffset, step);
    }
  } else {
    const step = plane.channels === 1 ? 1 : 3;
    resizeLinearRows(plane, geometry.scaledWidth, geometry.scaledHeight, (y, row) => writeRow(y, row, 0, step));
  }

  return {
    tensor,
    meta: {
      originalWidth: image.width,
      originalHeight: image.height,
      cropX: crop.x,
      cropY: crop.y,
      cropWidth: crop.width,
      cropHeight: crop.height,
      inputWidth: W,
      inputHeight: H,
      padLeft: geometry.padLeft,
      padTop: geometry.padTop,
      padRight: geometry.padRight,
      padBottom: geometry.padBottom,
    },
  };
}

/**
 * Per tensor channel, 8-bit value → network value, as torch computes it in float32:
 * `x / scaling_factor`, then `(x - mean) / std`. A table, since there are only 256 inputs.
 */
function valueFunctions(spec: PreprocessSpec): ((v: number) => number)[] {
  return [0, 1, 2].map((c) => {
    const table = new Float32Array(256);
    const scale = spec.scalingFactor === null ? null : f32(spec.scalingFactor);
    const mean = spec.normalization === null ? 0 : f32(spec.normalization.mean[c]!);
    const std = spec.normalization === null ? 1 : f32(spec.normalization.std[c]!);
    for (let v = 0; v < 256; v++) {
      let x = scale === null ? v : f32(v / scale);
      if (spec.normalization !== null) x = f32(f32(x - mean) / std);
      table[v] = x;
    }
    return (v: number) => table[v]!;
  });
}

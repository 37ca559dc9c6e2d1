// Image → network input: static crop, grayscale, contrast, resize, channel order, scale, normalise, NCHW.
import { InvalidInputError } from '../errors/index.js';
import { equalizeAdaptive } from './adaptive-equalization.js';
import { stretchContrast } from './contrast-stretching.js';
import { toGrayscale } from './grayscale.js';
import { equalizeHistogram } from './histogram-equalization.js';
import { planeOf, ycbcrPlane, type ImagePlane, type Rect } from './image-plane.js';
import { resizeGeometry, type ResizeGeometry } from './resize-geometry.js';
import { resizeLinearRows } from './resize-linear.js';
import { staticCropRect } from './static-crop.js';
import type { ContrastType, PixelImage, PreprocessMeta, PreprocessSpec } from './types.js';
import { isYCbCr, ycbcrToRgb, type YCbCrImage } from './ycbcr.js';

const f32 = Math.fround;

const CONTRAST: Record<ContrastType, (src: ImagePlane) => ImagePlane> = {
  'contrast-stretching': stretchContrast,
  'histogram-equalization': equalizeHistogram,
  'adaptive-equalization': equalizeAdaptive,
};

/**
 * Where the (cropped) image lands in the network input and how its 8-bit values become network values:
 * what preprocessing shares with a backend that preprocesses elsewhere (the WebGPU backend, on the GPU).
 */
export interface InputPlan {
  crop: Rect;
  geometry: ResizeGeometry;
  /** Per tensor channel, 8-bit value → network value. */
  tables: [Float32Array, Float32Array, Float32Array];
  /** Tensor channel c reads plane channel order[c] (channel 0 throughout after the grayscale step). */
  order: [number, number, number];
  meta: PreprocessMeta;
}

export function inputPlan(width: number, height: number, spec: PreprocessSpec): InputPlan {
  const crop = staticCropRect(width, height, spec.staticCrop);
  const { width: W, height: H } = spec.resize;
  const geometry = resizeGeometry(spec.resize, crop.width, crop.height);
  if (geometry.scaledWidth < 1 || geometry.scaledHeight < 1) {
    throw new InvalidInputError(
      'IMAGE_EMPTY',
      `a ${crop.width}×${crop.height} image letterboxed into ${W}×${H} leaves no pixels (${geometry.scaledWidth}×${geometry.scaledHeight})`,
    );
  }
  const order: InputPlan['order'] = spec.grayscale ? [0, 0, 0] : spec.colorMode === 'rgb' ? [0, 1, 2] : [2, 1, 0];
  const meta: PreprocessMeta = {
    originalWidth: width,
    originalHeight: height,
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
  };
  return { crop, geometry, tables: valueTables(spec), order, meta };
}

/**
 * The network input for one image, `[1, 3, H, W]` float32, and what postprocessing needs to map the
 * output back. Pass `out` (length 3·H·W) to reuse a buffer between calls.
 */
export function preprocess(
  image: PixelImage | YCbCrImage,
  spec: PreprocessSpec,
  out?: Float32Array,
): { tensor: Float32Array; meta: PreprocessMeta } {
  const { crop, geometry, tables, order, meta } = inputPlan(image.width, image.height, spec);
  // A JPEG's planes: the resize converts only the rows it reads; the steps that read every pixel (and
  // the centre crop, which copies them) get the image converted whole.
  const lazy = isYCbCr(image) && !spec.grayscale && spec.contrast === null && spec.resize.mode !== 'center-crop';
  let plane = isYCbCr(image) ? (lazy ? ycbcrPlane(image, crop) : planeOf(ycbcrToRgb(image), crop)) : planeOf(image, crop);
  if (spec.grayscale) plane = toGrayscale(plane);
  if (spec.contrast !== null) plane = CONTRAST[spec.contrast](plane);

  const { width: W, height: H } = spec.resize;
  const area = W * H;
  if (out !== undefined && out.length !== 3 * area) {
    throw new InvalidInputError('OPTION_INVALID', `the output buffer holds ${out.length} values, the input needs ${3 * area}`);
  }
  const tensor = out ?? new Float32Array(3 * area);

  // Fill with the padding value where the image does not cover the input; the image overwrites its part.
  const covers = geometry.dstX === 0 && geometry.dstY === 0 && geometry.copyWidth === W && geometry.copyHeight === H;
  if (!covers) for (let c = 0; c < 3; c++) tensor.fill(tables[c]![geometry.fill]!, c * area, (c + 1) * area);

  // One pass over a row writes all three channel planes (table lookups: 256 possible inputs).
  const [t0, t1, t2] = tables;
  const [o0, o1, o2] = order;
  const writeRow = (y: number, row: Uint8Array | Uint8ClampedArray, rowOffset: number, step: number) => {
    const base = (geometry.dstY + y) * W + geometry.dstX;
    const end = base + geometry.copyWidth;
    for (let d = base, i = rowOffset; d < end; d++, i += step) {
      tensor[d] = t0[row[i + o0]!]!;
      tensor[area + d] = t1[row[i + o1]!]!;
      tensor[2 * area + d] = t2[row[i + o2]!]!;
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

  return { tensor, meta };
}

/**
 * Per tensor channel, 8-bit value → network value, as torch computes it in float32:
 * `x / scaling_factor`, then `(x - mean) / std`. A table, since there are only 256 inputs.
 */
function valueTables(spec: PreprocessSpec): InputPlan['tables'] {
  const [r, g, b] = [0, 1, 2].map((c) => {
    const table = new Float32Array(256);
    const scale = spec.scalingFactor === null ? null : f32(spec.scalingFactor);
    const mean = spec.normalization === null ? 0 : f32(spec.normalization.mean[c]!);
    const std = spec.normalization === null ? 1 : f32(spec.normalization.std[c]!);
    for (let v = 0; v < 256; v++) {
      let x = scale === null ? v : f32(v / scale);
      if (spec.normalization !== null) x = f32(f32(x - mean) / std);
      table[v] = x;
    }
    return table;
  });
  return [r!, g!, b!];
}

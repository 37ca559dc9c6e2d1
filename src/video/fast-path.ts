// The video fast path: a frame → the network input through a canvas resize (not the reference-exact one),
// and the logits → the subject's probability and the class ids at the network's output resolution, left
// there until the compositor. Stills never take this path (segment() and segmentRaw() stay exact).
import { inputPlan, preprocess, type DeviceLogits, type PreprocessMeta, type PreprocessSpec } from '../pipeline/index.js';
import type { SubjectGrid } from '../pipeline/subject-probability.js';

export { gridMap, type GridMap } from '../pipeline/edge-refinement.js';
export { subjectGrid, type SubjectGrid } from '../pipeline/subject-probability.js';

/** A frame as the fast path reads it: a camera frame, or a bitmap (engines without VideoFrame in workers). */
export type LiveFrame = VideoFrame | ImageBitmap;

// OpenCV's 8-bit BGR2GRAY fixed point (as src/pipeline/grayscale.ts).
const GRAY = { r: 9798, g: 19235, b: 3735, shift: 15 } as const;

/**
 * RGBA pixels of the network input (already resized, padding included) → the NCHW tensor, through the
 * package's value tables and channel order.
 */
export function tensorFromRgba(
  rgba: Uint8ClampedArray,
  count: number,
  tables: readonly [Float32Array, Float32Array, Float32Array],
  order: readonly [number, number, number],
  grayscale: boolean,
  out: Float32Array,
): Float32Array {
  const [t0, t1, t2] = tables;
  const [o0, o1, o2] = order;
  for (let i = 0, p = 0; i < count; i++, p += 4) {
    if (grayscale) {
      const g = (rgba[p]! * GRAY.r + rgba[p + 1]! * GRAY.g + rgba[p + 2]! * GRAY.b + (1 << (GRAY.shift - 1))) >> GRAY.shift;
      out[i] = t0[g]!;
      out[count + i] = t1[g]!;
      out[2 * count + i] = t2[g]!;
    } else {
      out[i] = t0[rgba[p + o0]!]!;
      out[count + i] = t1[rgba[p + o1]!]!;
      out[2 * count + i] = t2[rgba[p + o2]!]!;
    }
  }
  return out;
}

/** Logits left on the GPU (WebGPU) give class ids only: the grid is the network input's, the probability 0 or 255. */
export async function subjectGridFromDevice(
  logits: DeviceLogits,
  meta: PreprocessMeta,
  classCount: number,
  backgroundClassId: number,
  confidence: number,
): Promise<SubjectGrid> {
  const [width, height] = [meta.inputWidth, meta.inputHeight];
  const whole: PreprocessMeta = {
    originalWidth: width,
    originalHeight: height,
    cropX: 0,
    cropY: 0,
    cropWidth: width,
    cropHeight: height,
    inputWidth: width,
    inputHeight: height,
    padLeft: 0,
    padTop: 0,
    padRight: 0,
    padBottom: 0,
  };
  const classIds = await logits.classIds(whole, { confidence, classCount, backgroundClassId });
  const probability = new Uint8Array(classIds.length);
  for (let i = 0; i < classIds.length; i++) probability[i] = classIds[i] === backgroundClassId ? 0 : 255;
  return { probability, classIds, width, height };
}

/**
 * Draws frames into the network's input size on a canvas and reads them back as the tensor. Models whose
 * preprocessing a canvas cannot do (contrast equalisation, a centre crop) take the exact CPU steps on the
 * frame's pixels instead.
 */
export class FrameInput {
  #input: OffscreenCanvasRenderingContext2D | null = null;
  #whole: OffscreenCanvasRenderingContext2D | null = null;
  /** Input buffers the model is done with (see `release`): a frame's input is still the model's while the next ones are drawn. */
  readonly #free: Float32Array[] = [];
  /** The input's RGBA pixels of the last frame (the network's view of it). */
  pixels: ImageData | null = null;

  prepare(
    frame: LiveFrame | OffscreenCanvas,
    width: number,
    height: number,
    spec: PreprocessSpec,
  ): { tensor: Float32Array; meta: PreprocessMeta } {
    const { width: W, height: H } = spec.resize;
    const tensor = this.#free.pop() ?? new Float32Array(3 * W * H);
    const plan = inputPlan(width, height, spec);
    if (spec.contrast !== null || spec.resize.mode === 'center-crop') {
      this.#whole = canvas2d(this.#whole, width, height);
      this.#whole.drawImage(frame, 0, 0, width, height);
      const image = this.#whole.getImageData(0, 0, width, height);
      this.pixels = image;
      return preprocess({ data: image.data, width, height, channels: 4 }, spec, tensor);
    }
    const ctx = (this.#input = canvas2d(this.#input, W, H));
    const { meta, crop } = plan;
    const pad = spec.resize.paddingValue;
    ctx.fillStyle = `rgb(${pad},${pad},${pad})`;
    ctx.fillRect(0, 0, W, H);
    const [sw, sh] = [W - meta.padLeft - meta.padRight, H - meta.padTop - meta.padBottom];
    ctx.drawImage(frame, crop.x, crop.y, crop.width, crop.height, meta.padLeft, meta.padTop, sw, sh);
    const image = ctx.getImageData(0, 0, W, H);
    this.pixels = image;
    return { tensor: tensorFromRgba(image.data, W * H, plan.tables, plan.order, spec.grayscale, tensor), meta };
  }

  /**
   * The model is done with a frame's input: its buffer is drawn into again. One sent to another worker is
   * detached (length 0), and one of another size is let go; an input never given back is left to the GC.
   */
  release(tensor: Float32Array, spec: PreprocessSpec): void {
    if (tensor.length === 3 * spec.resize.width * spec.resize.height && this.#free.length < 4) this.#free.push(tensor);
  }
}

/**
 * A 2D context of this size, the given one when it fits. `willReadFrequently` (the default) keeps its pixels
 * in memory, for canvases read back on the CPU; false lets the browser keep them on the GPU.
 */
export function canvas2d(
  ctx: OffscreenCanvasRenderingContext2D | null,
  width: number,
  height: number,
  willReadFrequently = true,
): OffscreenCanvasRenderingContext2D {
  if (ctx && ctx.canvas.width === width && ctx.canvas.height === height) return ctx;
  return new OffscreenCanvas(width, height).getContext('2d', { willReadFrequently })!;
}

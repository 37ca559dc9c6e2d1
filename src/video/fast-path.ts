// The video fast path: a frame → the network input through a canvas resize (not the reference-exact one),
// and the logits → the subject's probability and the class ids at the network's output resolution, left
// there until the compositor. Stills never take this path (segment() and segmentRaw() stay exact).
import {
  classIdMapping,
  inputPlan,
  preprocess,
  type DeviceLogits,
  type Logits,
  type PreprocessMeta,
  type PreprocessSpec,
} from '../pipeline/index.js';

/** A frame as the fast path reads it: a camera frame, or a bitmap (engines without VideoFrame in workers). */
export type LiveFrame = VideoFrame | ImageBitmap;

/**
 * Where the grid of the network's output lies on the frame: grid x = frame x · scaleX + offsetX (both in
 * continuous pixel coordinates, a pixel spanning [i, i + 1)). Frame pixels outside `crop` (a static crop)
 * are background.
 */
export interface GridMap {
  scaleX: number;
  offsetX: number;
  scaleY: number;
  offsetY: number;
  crop: { x: number; y: number; width: number; height: number };
}

/** The subject at the network's output resolution: probability 0–255 and class ids, one per grid cell. */
export interface SubjectGrid {
  probability: Uint8Array;
  classIds: Uint8Array;
  width: number;
  height: number;
}

// OpenCV's 8-bit BGR2GRAY fixed point (as src/pipeline/grayscale.ts).
const GRAY = { r: 9798, g: 19235, b: 3735, shift: 15 } as const;

/** How a frame maps onto a grid of gw × gh cells that covers the network input. */
export function gridMap(meta: PreprocessMeta, gw: number, gh: number): GridMap {
  const scaledW = meta.inputWidth - meta.padLeft - meta.padRight;
  const scaledH = meta.inputHeight - meta.padTop - meta.padBottom;
  const [kx, ky] = [gw / meta.inputWidth, gh / meta.inputHeight];
  const [sx, sy] = [scaledW / meta.cropWidth, scaledH / meta.cropHeight];
  return {
    scaleX: sx * kx,
    offsetX: (meta.padLeft - meta.cropX * sx) * kx,
    scaleY: sy * ky,
    offsetY: (meta.padTop - meta.cropY * sy) * ky,
    crop: { x: meta.cropX, y: meta.cropY, width: meta.cropWidth, height: meta.cropHeight },
  };
}

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

/**
 * Logits `[C, h, w]` → the subject's probability (every class but the background) and the class ids,
 * per logit cell. The ids follow the reference's rule (argmax, background below `confidence / 100`); the
 * probability is 1 − p(background) (softmax), σ(logit) for a one-channel model, and, for a model with no
 * background channel, the top class's probability; a cell below the confidence has probability 0.
 */
export function subjectGrid(
  logits: Logits,
  classCount: number,
  backgroundClassId: number,
  confidence: number,
  out?: SubjectGrid,
): SubjectGrid {
  const { channels: C, width, height, data } = logits;
  const n = width * height;
  const grid = out && out.probability.length === n ? out : { probability: new Uint8Array(n), classIds: new Uint8Array(n), width, height };
  const classOf = classIdMapping(C, classCount, backgroundClassId);
  const threshold = confidence / 100;
  let bgChannel = -1;
  for (let c = 0; c < C; c++) if (classOf[c] === backgroundClassId && C > 1 && C === classCount) bgChannel = c;
  const { probability, classIds } = grid;
  if (C === 1 && threshold >= SIGMOID_STEPS.guard && threshold <= 1 - SIGMOID_STEPS.guard) {
    // The reference's binary rule: the foreground class where σ ≥ the threshold. Both the byte and the
    // class are steps of the logit: compared with the steps' logits, with σ computed only next to one.
    const subjectId = classOf[0]!;
    const { base, edge, guard, range, scale } = sigmoidSteps();
    const cut = Math.log(threshold / (1 - threshold));
    for (let i = 0; i < n; i++) {
      const x = data[i]!;
      let byte: number;
      if (x > -range && x < range) {
        const b = ((x + range) * scale) | 0;
        const k = base[b]!;
        const e = edge[b]!;
        byte = k >= 0 && Math.abs(x - e) >= guard ? k + (x >= e ? 1 : 0) : Math.round((1 / (1 + Math.exp(-x))) * 255);
      } else byte = x >= range ? 255 : x <= -range ? 0 : Math.round((1 / (1 + Math.exp(-x))) * 255);
      probability[i] = byte;
      const subject = x >= cut + guard || (x > cut - guard && 1 / (1 + Math.exp(-x)) >= threshold);
      classIds[i] = subject ? subjectId : backgroundClassId;
    }
  } else if (C === 1) {
    const subjectId = classOf[0]!;
    for (let i = 0; i < n; i++) {
      const p = 1 / (1 + Math.exp(-data[i]!));
      probability[i] = Math.round(p * 255);
      classIds[i] = p >= threshold ? subjectId : backgroundClassId;
    }
  } else if (C === 2) {
    // Two channels: the softmax's exponentials are exp(0) = 1 (the top channel) and exp(low − top), the
    // same numbers the general loop below sums, from one exp.
    const [id0, id1] = [classOf[0]!, classOf[1]!];
    for (let i = 0; i < n; i++) {
      const a = data[i]!;
      const b = data[n + i]!;
      const arg = b > a ? 1 : 0;
      const hi = arg === 1 ? b : a;
      const lo = arg === 1 ? a : b;
      // exp(hi − hi): 1, or NaN where the top logit is not finite (as the general loop gets it).
      const one = 1 + (hi - hi);
      const e = Math.exp(lo - hi);
      const sum = one + e;
      const top = 1 / sum;
      let subject = bgChannel >= 0 ? 1 - (bgChannel === arg ? one : e) / sum : top;
      if (top < threshold) subject = Math.min(subject, 0.5 * (top / threshold));
      probability[i] = Math.round(subject * 255);
      classIds[i] = top >= threshold ? (arg === 1 ? id1 : id0) : backgroundClassId;
    }
  } else {
    for (let i = 0; i < n; i++) {
      let max = -Infinity;
      let arg = 0;
      for (let c = 0, j = i; c < C; c++, j += n) {
        const v = data[j]!;
        if (v > max) {
          max = v;
          arg = c;
        }
      }
      let sum = 0;
      for (let c = 0, j = i; c < C; c++, j += n) sum += Math.exp(data[j]! - max);
      const top = 1 / sum;
      let subject = bgChannel >= 0 ? 1 - Math.exp(data[bgChannel * n + i]! - max) / sum : top;
      if (top < threshold) subject = Math.min(subject, 0.5 * (top / threshold));
      probability[i] = Math.round(subject * 255);
      classIds[i] = top >= threshold ? classOf[arg]! : backgroundClassId;
    }
  }
  return grid;
}

/**
 * Math.round(255·σ(x)) as a step function of the logit x: byte k from t_k = logit((k − ½) / 255) on,
 * looked up per bucket of 1/scale in (−range, range), with at most one t_k in a bucket (they are ≥ 4/255
 * apart), `edge` that t_k (∞ if none) and `base` the byte below it (−1: a t_k lies within `guard` of the
 * bucket's ends, compute σ). Exact where it answers: the computed σ is within ~1e-15 of the true one, and
 * the true 255·σ moves at least 255·σ′(range) ≈ 0.085 per unit of x, so a logit `guard` or more from
 * every t_k is over 8e-8 from k − ½ and rounds as the table says. Past ±range the byte is 0 or 255
 * (255·σ(8) = 254.9). The same argument holds for the class threshold's logit while the threshold
 * lies in [guard, 1 − guard] (σ′ there is ≥ ~guard, so a logit `guard` away is ≥ ~1e-12 off in σ);
 * outside that, σ is computed for every cell.
 */
const SIGMOID_STEPS = { range: 8, scale: 128, guard: 1e-6 } as const;
let sigmoidTable: { base: Int16Array; edge: Float64Array; range: number; scale: number; guard: number } | undefined;

function sigmoidSteps(): NonNullable<typeof sigmoidTable> {
  if (sigmoidTable) return sigmoidTable;
  const { range, scale, guard } = SIGMOID_STEPS;
  const count = 2 * range * scale;
  const base = new Int16Array(count);
  const edge = new Float64Array(count).fill(Infinity);
  // t[k − 1] = t_k, ascending.
  const t = Float64Array.from({ length: 255 }, (_, j) => Math.log((j + 0.5) / 255 / (1 - (j + 0.5) / 255)));
  const near = (k: number, lo: number, hi: number) => k >= 0 && k < 255 && (Math.abs(t[k]! - lo) < guard || Math.abs(t[k]! - hi) < guard);
  let below = 0;
  for (let b = 0; b < count; b++) {
    const [lo, hi] = [b / scale - range, (b + 1) / scale - range];
    while (below < 255 && t[below]! < lo) below++;
    let k = below;
    while (k < 255 && t[k]! < hi) k++;
    if (k - below === 1) edge[b] = t[below]!;
    base[b] = k - below > 1 || near(below - 1, lo, hi) || near(below, lo, hi) || near(k, lo, hi) ? -1 : below;
  }
  return (sigmoidTable = { base, edge, range, scale, guard });
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
  /** Two input buffers, taken in turn: a frame's input is still the model's while the next one is drawn. */
  #tensors: (Float32Array | undefined)[] = [undefined, undefined];
  #turn = 0;
  /** The input's RGBA pixels of the last frame (the network's view of it). */
  pixels: ImageData | null = null;

  prepare(
    frame: LiveFrame | OffscreenCanvas,
    width: number,
    height: number,
    spec: PreprocessSpec,
  ): { tensor: Float32Array; meta: PreprocessMeta } {
    const { width: W, height: H } = spec.resize;
    this.#turn ^= 1;
    // A buffer sent to another worker comes back detached (length 0): a new one replaces it.
    if (this.#tensors[this.#turn]?.length !== 3 * W * H) this.#tensors[this.#turn] = new Float32Array(3 * W * H);
    const tensor = this.#tensors[this.#turn]!;
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
}

/** A 2D context of this size, the given one when it fits. */
export function canvas2d(ctx: OffscreenCanvasRenderingContext2D | null, width: number, height: number): OffscreenCanvasRenderingContext2D {
  if (ctx && ctx.canvas.width === width && ctx.canvas.height === height) return ctx;
  return new OffscreenCanvas(width, height).getContext('2d', { willReadFrequently: true })!;
}

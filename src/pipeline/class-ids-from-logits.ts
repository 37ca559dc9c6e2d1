// Logits → one class id per image pixel: un-pad, upsample, softmax, argmax, threshold — fused.
//
// The reference (post_process_semantic_segmentation_logits) upsamples every logit channel to the image
// size, takes the softmax, then max and argmax. That is C × H × W floats; at 4032×3024 with 21 classes,
// a gigabyte. Here each output pixel is decided from the few logit pixels under its interpolation
// support. Bilinear interpolation is a convex combination, so where all of them agree on the argmax class
// and are all confident enough, the interpolated pixel has that class and a confidence at least their
// smallest (log-softmax is concave in the logits): the class is written without any arithmetic. Only
// pixels near a class boundary or near the threshold take the full path, which reproduces torch's
// float32 arithmetic operation by operation. Pixels whose taps are all far too unsure to clear the
// threshold are background without arithmetic too (see surePixels).
import { ModelPackageError } from '../errors/index.js';
import { antialiasWeights, fma32, type AxisWeights } from './antialias-weights.js';
import { confidenceThreshold, validateConfidence } from './confidence.js';
import { VirtualUpsampledLogits } from './onnx-linear-resize.js';
import { roundHalfEven } from './round-half-even.js';
import type { Logits, PostprocessOptions, PreprocessMeta } from './types.js';

const f32 = Math.fround;
// Margins that keep the shortcut strictly on the safe side of float32 rounding.
const PROBABILITY_MARGIN = 2 ** -20;
const LOGIT_MARGIN = 1e-5;
const LOG_MARGIN = 1e-3;

export function classIdsFromLogits(logits: Logits, meta: PreprocessMeta, options: PostprocessOptions, out?: Uint8Array): Uint8Array {
  const { classCount, backgroundClassId } = options;
  const C = logits.channels;
  const threshold = confidenceThreshold(validateConfidence(options.confidence));
  const classOf = classIdMapping(C, classCount, backgroundClassId);
  const grid = logitGrid(logits, meta, backgroundClassId, threshold);
  const { width: cw, height: ch, sure, unsure, sureBackground } = grid;

  const size = meta.originalWidth * meta.originalHeight;
  const result = out ?? new Uint8Array(size);
  if (result.length !== size) {
    throw new ModelPackageError('MODEL_OUTPUT_SHAPE', `the class-id buffer holds ${result.length} pixels, the image has ${size}`);
  }
  const whole = meta.cropX === 0 && meta.cropY === 0 && meta.cropWidth === meta.originalWidth && meta.cropHeight === meta.originalHeight;
  if (!whole) result.fill(backgroundClassId);

  const decide = pixelDecider(C, threshold, classOf, backgroundClassId);
  const outW = meta.cropWidth;
  const outH = meta.cropHeight;
  const z = new Float64Array(C);

  if (cw === outW && ch === outH) {
    // No interpolation: the reference skips the resize when sizes agree.
    for (let y = 0; y < outH; y++) {
      let o = (meta.cropY + y) * meta.originalWidth + meta.cropX;
      for (let x = 0; x < outW; x++, o++) {
        const s = sure[y * cw + x]!;
        if (s !== unsure) {
          result[o] = s === sureBackground ? backgroundClassId : classOf[s]!;
          continue;
        }
        grid.pixel(x, y, z);
        result[o] = decide(z);
      }
    }
    return result;
  }

  const ax = antialiasWeights(cw, outW);
  const ay = antialiasWeights(ch, outH);
  const rowSure = sure instanceof Uint16Array ? new Uint16Array(cw) : new Uint8Array(cw);
  // Output rows with the same vertical taps share every sure pixel: one template row of class ids for
  // them, and the list of columns that need the full path.
  const template = new Uint8Array(outW);
  const unsureColumns = new Int32Array(outW);
  let unsureCount = 0;
  // The horizontal pass at the unsure columns, per logit row under the group: the same for every output
  // row of the group, so computed once per group (a 4032×3024 image from 64×64 logits: once per 47 rows).
  let across = new Float32Array(0);
  let rowSureStart = -1;
  let rowSureCount = -1;
  for (let y = 0; y < outH; y++) {
    const y0 = ay.start[y]!;
    const ny = ay.count[y]!;
    if (y0 !== rowSureStart || ny !== rowSureCount) {
      rowSureStart = y0;
      rowSureCount = ny;
      // Per logit column: the class all logit rows under this output row agree on, if they do.
      for (let sx = 0; sx < cw; sx++) {
        let s = sure[y0 * cw + sx]!;
        for (let j = 1; j < ny && s !== unsure; j++) if (sure[(y0 + j) * cw + sx] !== s) s = unsure;
        rowSure[sx] = s;
      }
      unsureCount = 0;
      for (let x = 0; x < outW; x++) {
        const x0 = ax.start[x]!;
        const nx = ax.count[x]!;
        let s = rowSure[x0]!;
        for (let i = 1; i < nx && s !== unsure; i++) if (rowSure[x0 + i] !== s) s = unsure;
        if (s === unsure) unsureColumns[unsureCount++] = x;
        else template[x] = s === sureBackground ? backgroundClassId : classOf[s]!;
      }
      if (across.length < unsureCount * ny * C) across = new Float32Array(unsureCount * ny * C);
      for (let k = 0; k < unsureCount; k++) {
        for (let j = 0; j < ny; j++) grid.across(ax, unsureColumns[k]!, y0 + j, across, (k * ny + j) * C);
      }
    }
    const o = (meta.cropY + y) * meta.originalWidth + meta.cropX;
    // The template's entries at unsure columns are stale; the full path overwrites them.
    result.set(template, o);
    // The vertical pass, accumulated in tap order with float32 fused multiply-adds as torch does.
    const wy = ay.offset[y]!;
    for (let k = 0; k < unsureCount; k++) {
      const at = k * ny * C;
      for (let c = 0; c < C; c++) {
        let acc = f32(across[at + c]! * ay.weights[wy]!);
        for (let j = 1; j < ny; j++) acc = fma32(acc, across[at + j * C + c]!, ay.weights[wy + j]!);
        z[c] = acc;
      }
      result[o + unsureColumns[k]!] = decide(z);
    }
  }
  return result;
}

/**
 * The logits that postprocessing resamples (letterbox padding removed), with their sure table and the
 * two reads the fused loop needs: one grid pixel's channels, and the horizontal half of torch's
 * separable interpolation (the fused loop does the vertical half).
 */
interface LogitGrid extends SurePixels {
  width: number;
  height: number;
  pixel(x: number, y: number, z: Float64Array): void;
  /**
   * torch's horizontal pass at output column x over grid row `row`, for every channel, into out[at + c]:
   * the row's taps accumulated in order with float32 fused multiply-adds.
   */
  across(ax: AxisWeights, x: number, row: number, out: Float32Array, at: number): void;
}

function logitGrid(logits: Logits, meta: PreprocessMeta, backgroundClassId: number, threshold: number): LogitGrid {
  const up = logits.upsample;
  if (up) {
    const virtual = new VirtualUpsampledLogits(logits, up.height, up.width);
    const padding = logitPadding(up.height, up.width, meta);
    // A centre crop (negative padding) and the sigmoid case are left to the plain path on the upsampled
    // array (the worker does not cut such models; this keeps the meaning of `upsample` everywhere).
    if (logits.channels > 1 && Object.values(padding).every((p) => p >= 0)) return virtualGrid(virtual, padding, threshold);
    return logitGrid(virtual.materialise(), meta, backgroundClassId, threshold);
  }
  const cropped = cropPadding(logits, meta, backgroundClassId);
  const { data, channels: C, width: w } = cropped;
  const plane = w * cropped.height;
  return {
    ...surePixels(cropped, threshold),
    width: w,
    height: cropped.height,
    pixel(x, y, z) {
      for (let c = 0; c < C; c++) z[c] = data[c * plane + y * w + x]!;
    },
    across(ax, x, row, out, at) {
      const x0 = ax.start[x]!;
      const nx = ax.count[x]!;
      const wx = ax.offset[x]!;
      for (let c = 0, p = row * w + x0; c < C; c++, p += plane) {
        let h = f32(data[p]! * ax.weights[wx]!);
        for (let i = 1; i < nx; i++) h = fma32(h, data[p + i]!, ax.weights[wx + i]!);
        out[at + c] = h;
      }
    },
  };
}

/**
 * Virtual upsampled logits, cropped to the letterbox's content. A virtual pixel is a convex combination
 * of at most four low-resolution pixels (its taps), so it is sure of a class only where all its taps are
 * sure of it, and surely background where all its taps are (the Jensen bound of surePixels survives
 * convex combinations); the sure table is derived from the low-resolution one without touching the
 * upsampled values. The values that the full path needs are computed as onnxruntime computes them.
 */
function virtualGrid(virtual: VirtualUpsampledLogits, padding: ReturnType<typeof logitPadding>, threshold: number): LogitGrid {
  const { top, left } = padding;
  const width = virtual.width - left - padding.right;
  const height = virtual.height - top - padding.bottom;
  if (width <= 0 || height <= 0) {
    throw new ModelPackageError('MODEL_OUTPUT_SHAPE', `after removing the letterbox padding, no logits are left (${width}×${height})`);
  }
  const low = surePixels(virtual.low, threshold);
  const { unsure } = low;
  const w = virtual.low.width;
  const { rows, cols } = virtual;
  const sure = low.sure instanceof Uint16Array ? new Uint16Array(width * height) : new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const r1 = rows.lo[y + top]! * w;
    const r2 = rows.hi[y + top]! * w;
    for (let x = 0; x < width; x++) {
      const x1 = cols.lo[x + left]!;
      const x2 = cols.hi[x + left]!;
      const s = low.sure[r1 + x1]!;
      sure[y * width + x] = low.sure[r1 + x2] === s && low.sure[r2 + x1] === s && low.sure[r2 + x2] === s ? s : unsure;
    }
  }
  const C = virtual.channels;
  return {
    sure,
    unsure,
    sureBackground: low.sureBackground,
    width,
    height,
    pixel(x, y, z) {
      for (let c = 0; c < C; c++) z[c] = virtual.valueAt(c, y + top, x + left);
    },
    // The plain grid's horizontal pass over computed values. Not shared through a value reader: a
    // function call per tap made the plain grid's full path about twice as slow in V8.
    across(ax, x, row, out, at) {
      const x0 = ax.start[x]! + left;
      const nx = ax.count[x]!;
      const wx = ax.offset[x]!;
      for (let c = 0; c < C; c++) {
        let h = f32(virtual.valueAt(c, row + top, x0) * ax.weights[wx]!);
        for (let i = 1; i < nx; i++) h = fma32(h, virtual.valueAt(c, row + top, x0 + i), ax.weights[wx + i]!);
        out[at + c] = h;
      }
    },
  };
}

/** Class id of each output channel: all classes, all but background, or the one foreground class. */
export function classIdMapping(channels: number, classCount: number, backgroundClassId: number): Uint8Array {
  if (channels === classCount && channels > 1) return Uint8Array.from({ length: classCount }, (_, i) => i);
  if (channels === classCount - 1 || channels === 1) {
    const foreground: number[] = [];
    for (let i = 0; i < classCount; i++) if (i !== backgroundClassId) foreground.push(i);
    return Uint8Array.from(foreground.slice(0, channels));
  }
  throw new ModelPackageError(
    'MODEL_OUTPUT_SHAPE',
    `the model outputs ${channels} channels for ${classCount} classes; expected ${classCount}, ${classCount - 1} (no background channel) or 1 (sigmoid)`,
  );
}

/**
 * The logits without the letterbox padding (rounded with Python's round, as the reference does); where a
 * centre crop cut the image (negative padding), rows and columns of the constant background id.
 */
function cropPadding(logits: Logits, meta: PreprocessMeta, backgroundClassId: number): Logits {
  const { channels: C, height: h, width: w, data } = logits;
  if (data.length !== C * h * w) {
    throw new ModelPackageError('MODEL_OUTPUT_SHAPE', `the logits hold ${data.length} values, [${C}, ${h}, ${w}] needs ${C * h * w}`);
  }
  const { top, bottom, left, right } = logitPadding(h, w, meta);
  if (top === 0 && bottom === 0 && left === 0 && right === 0) return logits;
  const ch = h - top - bottom;
  const cw = w - left - right;
  if (ch <= 0 || cw <= 0) {
    throw new ModelPackageError('MODEL_OUTPUT_SHAPE', `after removing the letterbox padding, no logits are left (${cw}×${ch})`);
  }
  const out = new Float32Array(C * ch * cw);
  for (let c = 0; c < C; c++) {
    for (let y = 0; y < ch; y++) {
      const srcY = y + top;
      for (let x = 0; x < cw; x++) {
        const srcX = x + left;
        const inside = srcY >= 0 && srcY < h && srcX >= 0 && srcX < w;
        out[(c * ch + y) * cw + x] = inside ? data[(c * h + srcY) * w + srcX]! : backgroundClassId;
      }
    }
  }
  return { data: out, channels: C, height: ch, width: cw };
}

/** The letterbox padding in logit pixels, rounded as the reference rounds it (Python's round). */
export function logitPadding(h: number, w: number, meta: PreprocessMeta): { top: number; bottom: number; left: number; right: number } {
  const sy = h / meta.inputHeight;
  const sx = w / meta.inputWidth;
  return {
    top: roundHalfEven(sy * meta.padTop),
    bottom: roundHalfEven(sy * meta.padBottom),
    left: roundHalfEven(sx * meta.padLeft),
    right: roundHalfEven(sx * meta.padRight),
  };
}

/**
 * What surePixels found: per logit pixel, the output channel it is certain of, `sureBackground` for a
 * pixel clearly below the threshold, or `unsure`.
 */
interface SurePixels {
  sure: Uint8Array | Uint16Array;
  /** A logit pixel whose class is not certain enough for the shortcut. */
  unsure: number;
  /** A logit pixel certainly below the threshold. */
  sureBackground: number;
}

/**
 * Per logit pixel: the output channel it is certain of (its max probability clears the threshold and its
 * argmax is not a near-tie), sureBackground for a pixel clearly below the threshold, or unsure.
 */
function surePixels(logits: Logits, threshold: number): SurePixels {
  const { channels: C, data } = logits;
  // The two markers sit just above the channel indices. Up to 254 channels they fit in a byte, which
  // keeps the common case's table (and its cache footprint) small; 255 and 256 channels (the 8-bit
  // mask's limit) would collide with channels 254 and 255, so those models get 16 bits.
  const sureBackground = C;
  const unsure = C + 1;
  // Softmax pixels certainly below the threshold. With m = max_c z_c and μ = mean_c z_c, the log of the
  // top probability is m − logsumexp(z) ≤ m − μ − log C (Jensen). Both m (convex) and −μ (linear) are at
  // most the same convex combination of their values at the taps, so if every tap has
  // m − μ < log(threshold) + log C, so does the interpolated pixel: it is background.
  const lowConfidence = threshold > 0 ? Math.log(threshold) + Math.log(C) - LOG_MARGIN : -Infinity;
  const plane = logits.width * logits.height;
  const sure = unsure <= 0xff ? new Uint8Array(plane) : new Uint16Array(plane);
  const lead = clearLead(C, threshold);
  for (let p = 0; p < plane; p++) {
    if (C === 1) {
      const prob = 1 / (1 + Math.exp(-data[p]!));
      sure[p] = prob >= threshold + PROBABILITY_MARGIN ? 0 : prob < threshold - PROBABILITY_MARGIN ? sureBackground : unsure;
      continue;
    }
    let best = 0;
    let top = data[p]!;
    let second = -Infinity;
    let total = top;
    let magnitude = Math.abs(top);
    for (let c = 1; c < C; c++) {
      const v = data[c * plane + p]!;
      total += v;
      magnitude = Math.max(magnitude, Math.abs(v));
      if (v > top) {
        second = top;
        top = v;
        best = c;
      } else if (v > second) second = v;
    }
    // The margin also covers float32 rounding in the interpolation, which grows with the logits' size.
    if (top - total / C < lowConfidence - 1e-6 * magnitude) {
      sure[p] = sureBackground;
      continue;
    }
    if (top - second <= LOGIT_MARGIN * (1 + Math.abs(top))) {
      sure[p] = unsure;
      continue;
    }
    if (top - second >= lead) {
      sure[p] = best;
      continue;
    }
    let sum = 0;
    for (let c = 0; c < C; c++) sum += Math.exp(data[c * plane + p]! - top);
    sure[p] = 1 / sum >= threshold + PROBABILITY_MARGIN ? best : unsure;
  }
  return { sure, unsure, sureBackground };
}

/**
 * The lead of the top logit over the runner-up past which a pixel clears the threshold without the
 * softmax: its probability is at least 1 / (1 + (C − 1)·e^−lead), which such a lead keeps above the
 * threshold by a relative margin of 10⁻³, far wider than float32's rounding of C exponentials and their
 * sum (and than surePixels' PROBABILITY_MARGIN: below a threshold of 10⁻³, 1/C alone clears that). A lead
 * this wide also rules out torch's tie rule (an exponential that rounds to 1).
 */
function clearLead(C: number, threshold: number): number {
  const room = 1 / (threshold * (1 + 1e-3)) - 1;
  return Math.max(room > 0 ? Math.log((C - 1) / room) : Infinity, 1e-5);
}

/** The full decision for one pixel's logits, in float32 as torch computes softmax / sigmoid. */
function pixelDecider(C: number, threshold: number, classOf: Uint8Array, backgroundClassId: number): (z: Float64Array) => number {
  if (C === 1) {
    return (z) => {
      const prob = f32(1 / f32(1 + f32(Math.exp(-z[0]!))));
      return prob < threshold ? backgroundClassId : classOf[0]!;
    };
  }
  // Most full-path pixels sit in the wide bands around a boundary that upsampling by a large factor
  // makes, not on it: their lead takes them past the softmax.
  const lead = clearLead(C, threshold);
  return (z) => {
    let best = 0;
    let top = z[0]!;
    let second = -Infinity;
    for (let c = 1; c < C; c++) {
      const v = z[c]!;
      if (v > top) {
        second = top;
        top = v;
        best = c;
      } else if (v > second) second = v;
    }
    if (top - second >= lead) return classOf[best]!;
    let sum = 0;
    for (let c = 0; c < C; c++) {
      const e = f32(Math.exp(f32(z[c]! - top)));
      // torch takes the max of the probabilities: an earlier class whose probability rounds equal wins.
      if (c < best && e === 1) best = c;
      sum = f32(sum + e);
    }
    const prob = f32(1 / sum);
    return prob < threshold ? backgroundClassId : classOf[best]!;
  };
}

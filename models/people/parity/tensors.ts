// Tensors for comparing the original selfie models (LiteRT, NHWC, sigmoid inside) with their ONNX
// conversions (NCHW, logits out): seeded inputs, layout changes and the comparison itself.

/** The models' output, as LiteRT gives it: the probability of "person" per pixel, threshold 0.5. */
export interface Comparison {
  /** Largest |p_a − p_b| over the pixels. */
  maxDiff: number;
  /** Pixels whose mask (p ≥ 0.5) differs. */
  maskDiffs: number;
  pixels: number;
}

/** A seeded uniform [0, 1) NHWC image tensor (mulberry32), the same on every runtime and machine. */
export function randomNhwc(seed: number, height: number, width: number): Float32Array {
  let s = seed >>> 0;
  const out = new Float32Array(height * width * 3);
  for (let i = 0; i < out.length; i++) {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  return out;
}

/** RGBA pixels (already at the network's size) → NHWC RGB ÷ 255, as MediaPipe feeds the models. */
export function nhwcFromRgba(rgba: Uint8ClampedArray | Uint8Array, height: number, width: number): Float32Array {
  const out = new Float32Array(height * width * 3);
  for (let p = 0, q = 0; p < height * width; p++, q += 4) {
    out[3 * p] = rgba[q]! / 255;
    out[3 * p + 1] = rgba[q + 1]! / 255;
    out[3 * p + 2] = rgba[q + 2]! / 255;
  }
  return out;
}

export function nchwFromNhwc(nhwc: Float32Array, height: number, width: number): Float32Array {
  const plane = height * width;
  const out = new Float32Array(3 * plane);
  for (let p = 0; p < plane; p++) for (let c = 0; c < 3; c++) out[c * plane + p] = nhwc[3 * p + c]!;
  return out;
}

/** The sigmoid the pipeline applies to a one-channel model's logits (float32, as torch computes it). */
export function sigmoid(logits: Float32Array): Float32Array {
  return logits.map((z) => Math.fround(1 / Math.fround(1 + Math.fround(Math.exp(-z)))));
}

export function compare(a: Float32Array, b: Float32Array): Comparison {
  if (a.length !== b.length) throw new Error(`outputs of ${a.length} and ${b.length} values`);
  let maxDiff = 0;
  let maskDiffs = 0;
  for (let i = 0; i < a.length; i++) {
    maxDiff = Math.max(maxDiff, Math.abs(a[i]! - b[i]!));
    if (a[i]! >= 0.5 !== b[i]! >= 0.5) maskDiffs++;
  }
  return { maxDiff, maskDiffs, pixels: a.length };
}

/** Float32 values as base64 (little-endian), to cross a page or process boundary cheaply. */
export function floatsToBase64(values: Float32Array): string {
  const bytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

export function floatsFromBase64(text: string): Float32Array {
  const s = atob(text);
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
  return new Float32Array(bytes.buffer);
}

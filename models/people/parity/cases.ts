// What the parity check of the converted people models compares, shared by the script
// (models/people/verify.ts, through parity/page.ts) and the test (test/browser/people-litert.test.ts):
// the two models, the tolerances, and the inputs (uniform noise, each sample photo, each photo with noise).
import { nhwcFromRgba, randomNhwc } from './tensors.js';

/** The two MediaPipe selfie models, by their package name under models/people/. */
export const PEOPLE_VARIANTS = [
  { name: 'general', tflite: 'selfie_segmentation.tflite', height: 256, width: 256 },
  { name: 'landscape', tflite: 'selfie_segmentation_landscape.tflite', height: 144, width: 256 },
] as const;

/** Largest difference from LiteRT.js after the sigmoid; the masks (p ≥ 0.5) must be equal. */
export const TOLERANCE = 1e-4;
/**
 * onnxruntime-node on the noised photos (measured up to 1.5e-4): those inputs drive the logits to ±800,
 * where float32 rounding is ~1e-4 in the logit, and native x86 kernels (FMA, NCHWc blocking) round
 * differently from the two WASM runtimes (which agree to 3e-5 there).
 */
export const NATIVE_NOISED_TOLERANCE = 2e-4;

export interface InputSpec {
  label: string;
  /** A photo under models/people/samples/, stretched to the network's size by the canvas. */
  photo?: string;
  /** Seed of uniform noise: the whole input, or ±0.1 added to the photo. */
  seed?: number;
}

/** Uniform noise (no person: the check is on small values), each photo, and each photo with ±0.1 of noise. */
export function parityInputs(photos: readonly { file: string; name: string }[]): InputSpec[] {
  return [
    ...[1, 2, 3].map((seed) => ({ label: `uniform noise, seed ${seed}`, seed })),
    ...photos.map((p) => ({ label: p.name, photo: p.file })),
    ...photos.map((p, i) => ({ label: `${p.name} ±0.1 noise`, photo: p.file, seed: 100 + i })),
  ];
}

/** The tolerance onnxruntime-node is held to on an input. */
export const nativeTolerance = (spec: InputSpec): number => (spec.photo && spec.seed !== undefined ? NATIVE_NOISED_TOLERANCE : TOLERANCE);

/** The input's NHWC tensor in [0, 1], made in the browser (fetch and canvas), as an app feeds LiteRT. */
export async function inputOf(spec: InputSpec, height: number, width: number): Promise<Float32Array> {
  if (!spec.photo) return randomNhwc(spec.seed ?? 0, height, width);
  const bitmap = await createImageBitmap(await (await fetch(`/models/people/samples/${spec.photo}`)).blob());
  const ctx = new OffscreenCanvas(width, height).getContext('2d')!;
  ctx.drawImage(bitmap, 0, 0, width, height);
  const nhwc = nhwcFromRgba(ctx.getImageData(0, 0, width, height).data, height, width);
  if (spec.seed === undefined) return nhwc;
  const noise = randomNhwc(spec.seed, height, width);
  return nhwc.map((v, k) => Math.min(1, Math.max(0, v + 0.2 * (noise[k]! - 0.5))));
}

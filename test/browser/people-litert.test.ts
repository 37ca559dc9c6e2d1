// The converted people models against the originals: LiteRT.js (XNNPACK) runs each .tflite, onnxruntime
// (web WASM here, native through a command) the ONNX, on the same tensors; after the sigmoid the
// outputs agree to 1e-4 and the masks are equal.
import { afterAll, describe, expect, test } from 'vitest';
import { commands, server } from 'vitest/browser';
import { liteRtRunner, ortWebRunner, type Runner } from '../../models/people/parity/runtimes.js';
import {
  compare,
  floatsFromBase64,
  floatsToBase64,
  nchwFromNhwc,
  nhwcFromRgba,
  randomNhwc,
  sigmoid,
} from '../../models/people/parity/tensors.js';
import samples from '../../models/people/samples/manifest.json';

const MEDIAPIPE = '/node_modules/@mediapipe/selfie_segmentation';
const VARIANTS = [
  { name: 'general', tflite: 'selfie_segmentation.tflite', height: 256, width: 256 },
  { name: 'landscape', tflite: 'selfie_segmentation_landscape.tflite', height: 144, width: 256 },
] as const;
const TOLERANCE = 1e-4;
// onnxruntime-node on the noised photos (measured up to 1.5e-4): those inputs drive the logits to ±800,
// where float32 rounding is ~1e-4 in the logit, and native x86 kernels (FMA, NCHWc blocking) round
// differently from the two WASM runtimes (which agree to 3e-5 there). The masks are equal everywhere.
const NATIVE_NOISED_TOLERANCE = 2e-4;

/** A sample photo stretched to the network's size by the canvas, as an app feeds LiteRT. */
async function photoNhwc(file: string, height: number, width: number): Promise<Float32Array> {
  const bitmap = await createImageBitmap(await (await fetch(`/models/people/samples/${file}`)).blob());
  const ctx = new OffscreenCanvas(width, height).getContext('2d')!;
  ctx.drawImage(bitmap, 0, 0, width, height);
  return nhwcFromRgba(ctx.getImageData(0, 0, width, height).data, height, width);
}

// A check of the converter, not of an engine: Chromium and Firefox run it. LiteRT.js's threaded build
// needs relaxed SIMD, which WebKitGTK 2.50 lacks ("Threads are only supported with relaxed SIMD").
describe.skipIf(server.browser === 'webkit').each(VARIANTS)('people $name: ONNX conversion = the original .tflite', (variant) => {
  const { height, width } = variant;
  const runners: Runner[] = [];
  afterAll(async () => {
    for (const r of runners) await r.release();
  });
  // Uniform noise (no person: the outputs sit near 0, the check is on the small values), each photo, and
  // each photo with ±0.1 of noise (a person, values the photos alone do not give).
  interface Case {
    label: string;
    person: boolean;
    nativeTolerance: number;
    make: () => Promise<Float32Array>;
  }
  const photos = samples.images.map((s) => ({ name: s.name, load: () => photoNhwc(s.file, height, width) }));
  const cases: Case[] = [
    ...[1, 2].map((seed) => ({
      label: `random seed ${seed}`,
      person: false,
      nativeTolerance: TOLERANCE,
      make: () => Promise.resolve(randomNhwc(seed, height, width)),
    })),
    ...photos.map((p) => ({ label: p.name, person: true, nativeTolerance: TOLERANCE, make: p.load })),
    ...photos.map((p, i) => ({
      label: `${p.name} + noise`,
      person: true,
      nativeTolerance: NATIVE_NOISED_TOLERANCE,
      make: async () => {
        const noise = randomNhwc(100 + i, height, width);
        return (await p.load()).map((v, k) => Math.min(1, Math.max(0, v + 0.2 * (noise[k]! - 0.5))));
      },
    })),
  ];
  let litert: Runner;
  let web: Runner;

  test.each(cases)('$label', async ({ person, nativeTolerance, make }) => {
    if (!litert) {
      runners.push((litert = await liteRtRunner(`${MEDIAPIPE}/${variant.tflite}`, '/node_modules/@litertjs/core/wasm/', height, width, 1)));
      runners.push((web = await ortWebRunner(`/models/people/${variant.name}/weights.onnx`, height, width, 1)));
    }
    const nhwc = await make();
    const nchw = nchwFromNhwc(nhwc, height, width);
    const original = await litert(nhwc);
    const fromWeb = sigmoid(await web(nchw));
    const fromNative = sigmoid(
      floatsFromBase64(await commands.nativeRun(`models/people/${variant.name}/weights.onnx`, floatsToBase64(nchw), [1, 3, height, width])),
    );
    // The photos hold a person: both classes are in the mask, so the check covers both sides of 0.5.
    if (person) expect(original.filter((p) => p >= 0.5).length / original.length).toBeGreaterThan(0.05);
    for (const [runtime, probabilities] of [
      ['onnxruntime-web', fromWeb],
      ['onnxruntime-node', fromNative],
    ] as const) {
      const c = compare(original, probabilities);
      const tolerance = runtime === 'onnxruntime-node' ? nativeTolerance : TOLERANCE;
      expect(c.maxDiff, `${runtime}: largest difference after the sigmoid`).toBeLessThanOrEqual(tolerance);
      expect(c.maskDiffs, `${runtime}: mask pixels that differ`).toBe(0);
    }
  });
});

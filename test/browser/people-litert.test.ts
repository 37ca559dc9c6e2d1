// The converted people models against the originals: LiteRT.js (XNNPACK) runs each .tflite, onnxruntime
// (web WASM here, native through a command) the ONNX, on the same tensors; after the sigmoid the
// outputs agree to 1e-4 and the masks are equal.
import { afterAll, describe, expect, test } from 'vitest';
import { commands, server } from 'vitest/browser';
import { inputOf, nativeTolerance, parityInputs, PEOPLE_VARIANTS, TOLERANCE } from '../../models/people/parity/cases.js';
import { liteRtRunner, ortWebRunner, type Runner } from '../../models/people/parity/runtimes.js';
import { compare, floatsFromBase64, floatsToBase64, nchwFromNhwc, sigmoid } from '../../models/people/parity/tensors.js';
import samples from '../../models/people/samples/manifest.json';

const MEDIAPIPE = '/node_modules/@mediapipe/selfie_segmentation';
// A check of the converter, not of an engine: Chromium and Firefox run it. LiteRT.js's threaded build
// needs relaxed SIMD, which WebKitGTK 2.50 lacks ("Threads are only supported with relaxed SIMD").
describe.skipIf(server.browser === 'webkit').each(PEOPLE_VARIANTS)('people $name: ONNX conversion = the original .tflite', (variant) => {
  const { height, width } = variant;
  const runners: Runner[] = [];
  afterAll(async () => {
    for (const r of runners) await r.release();
  });
  const cases = parityInputs(samples.images);
  let litert: Runner;
  let web: Runner;

  test.each(cases)('$label', async (spec) => {
    if (!litert) {
      runners.push((litert = await liteRtRunner(`${MEDIAPIPE}/${variant.tflite}`, '/node_modules/@litertjs/core/wasm/', height, width, 1)));
      runners.push((web = await ortWebRunner(`/models/people/${variant.name}/weights.onnx`, height, width, 1)));
    }
    const nhwc = await inputOf(spec, height, width);
    const nchw = nchwFromNhwc(nhwc, height, width);
    const original = await litert(nhwc);
    const fromWeb = sigmoid(await web(nchw));
    const fromNative = sigmoid(
      floatsFromBase64(await commands.nativeRun(`models/people/${variant.name}/weights.onnx`, floatsToBase64(nchw), [1, 3, height, width])),
    );
    // The photos hold a person: both classes are in the mask, so the check covers both sides of 0.5.
    if (spec.photo) expect(original.filter((p) => p >= 0.5).length / original.length).toBeGreaterThan(0.05);
    for (const [runtime, probabilities] of [
      ['onnxruntime-web', fromWeb],
      ['onnxruntime-node', fromNative],
    ] as const) {
      const c = compare(original, probabilities);
      const tolerance = runtime === 'onnxruntime-node' ? nativeTolerance(spec) : TOLERANCE;
      expect(c.maxDiff, `${runtime}: largest difference after the sigmoid`).toBeLessThanOrEqual(tolerance);
      expect(c.maskDiffs, `${runtime}: mask pixels that differ`).toBe(0);
    }
  });
});

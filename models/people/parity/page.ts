// The page half of models/people/verify.ts: builds each input, runs LiteRT.js and onnxruntime-web on it.
import { liteRtRunner, ortWebRunner } from './runtimes.js';
import { floatsToBase64, nchwFromNhwc, nhwcFromRgba, randomNhwc } from './tensors.js';

export interface InputSpec {
  label: string;
  /** A photo under models/people/samples/, stretched to the network's size by the canvas. */
  photo?: string;
  /** Seed of uniform noise: the whole input, or ±0.1 added to the photo. */
  seed?: number;
}

async function inputOf(spec: InputSpec, height: number, width: number): Promise<Float32Array> {
  let nhwc: Float32Array;
  if (spec.photo) {
    const bitmap = await createImageBitmap(await (await fetch(`/models/people/samples/${spec.photo}`)).blob());
    const ctx = new OffscreenCanvas(width, height).getContext('2d')!;
    ctx.drawImage(bitmap, 0, 0, width, height);
    nhwc = nhwcFromRgba(ctx.getImageData(0, 0, width, height).data, height, width);
    if (spec.seed !== undefined) {
      const noise = randomNhwc(spec.seed, height, width);
      nhwc = nhwc.map((v, k) => Math.min(1, Math.max(0, v + 0.2 * (noise[k]! - 0.5))));
    }
  } else nhwc = randomNhwc(spec.seed ?? 0, height, width);
  return nhwc;
}

const api = {
  /** For each input: the NCHW tensor, LiteRT's probabilities and onnxruntime-web's logits (base64). */
  async run(c: { tflite: string; onnx: string; height: number; width: number; threads: number; inputs: InputSpec[] }) {
    const litert = await liteRtRunner(c.tflite, '/node_modules/@litertjs/core/wasm/', c.height, c.width, c.threads);
    const web = await ortWebRunner(c.onnx, c.height, c.width, c.threads);
    const out = [];
    for (const spec of c.inputs) {
      const nhwc = await inputOf(spec, c.height, c.width);
      const nchw = nchwFromNhwc(nhwc, c.height, c.width);
      out.push({ input: floatsToBase64(nchw), litert: floatsToBase64(await litert(nhwc)), web: floatsToBase64(await web(nchw)) });
    }
    await litert.release();
    await web.release();
    return out;
  },
};

(window as unknown as { parity: typeof api }).parity = api;
(window as unknown as { parityReady: boolean }).parityReady = true;

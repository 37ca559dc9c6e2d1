// The page half of models/people/verify.ts: builds each input, runs LiteRT.js and onnxruntime-web on it.
import { liteRtRunner, ortWebRunner } from './runtimes.js';
import { inputOf, type InputSpec } from './cases.js';
import { floatsToBase64, nchwFromNhwc } from './tensors.js';

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

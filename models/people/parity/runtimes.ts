// The two browser runtimes of the comparison and the benchmark: LiteRT.js (XNNPACK) on the original
// .tflite, and onnxruntime-web (WASM, edgeseg's build) on the converted ONNX.
import { loadAndCompile, loadLiteRt, Tensor } from '@litertjs/core';

/** Runs one input tensor; resolves to the model's output values. */
export type Runner = ((input: Float32Array) => Promise<Float32Array>) & { release(): Promise<void> };

let liteRt: Promise<unknown> | null = null;

/**
 * LiteRT.js on the CPU (XNNPACK) with `threads` threads (the threaded build needs cross-origin isolation).
 * Input NHWC [1,H,W,3]; output the probabilities [1,H,W,1], the sigmoid included.
 */
export async function liteRtRunner(tfliteUrl: string, wasmDir: string, height: number, width: number, threads: number): Promise<Runner> {
  // One LiteRT per page: its Wasm module is global, so the threaded build is loaded wherever the page may
  // use threads, whatever the first model asks for.
  liteRt ??= loadLiteRt(wasmDir, { threads: globalThis.crossOriginIsolated === true });
  await liteRt;
  const model = await loadAndCompile(tfliteUrl, { accelerator: 'wasm', cpuOptions: { numThreads: threads } });
  const run = async (input: Float32Array) => {
    const tensor = new Tensor(input, [1, height, width, 3]);
    try {
      const [output] = await model.run(tensor);
      try {
        return (output!.toTypedArray() as Float32Array).slice();
      } finally {
        output!.delete();
      }
    } finally {
      tensor.delete();
    }
  };
  return Object.assign(run, { release: () => Promise.resolve(model.delete()) });
}

/** onnxruntime-web's WASM backend, as edgeseg's worker creates it. Input NCHW; output the logits. */
export async function ortWebRunner(onnxUrl: string, height: number, width: number, threads: number): Promise<Runner> {
  const ort = await import('onnxruntime-web/wasm');
  ort.env.wasm.numThreads = threads;
  const weights = new Uint8Array(await (await fetch(onnxUrl)).arrayBuffer());
  const session = await ort.InferenceSession.create(weights, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
  const run = async (input: Float32Array) => {
    const outputs = await session.run({ [session.inputNames[0]!]: new ort.Tensor('float32', input, [1, 3, height, width]) });
    const output = outputs[session.outputNames[0]!]!;
    const data = (await output.getData(true)) as Float32Array;
    return data;
  };
  return Object.assign(run, { release: () => session.release() });
}

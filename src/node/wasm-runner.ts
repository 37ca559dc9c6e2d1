// The `wasm` backend's session runner in Node: onnxruntime-web's WASM build, the same code a browser runs.
import { BackendError } from '../errors/index.js';
import type { NodeSessionRunner, RunnerOptions } from './node-runner.js';
import { installSpec, isNotFound } from './native-install.js';
import { sessionRunner } from '../ort/ort-session.js';

export async function createWasmRunner(weights: Uint8Array, _options: RunnerOptions = {}): Promise<NodeSessionRunner> {
  // An optional peer dependency: a web app gets edgeseg's own copy of it, in its browser build.
  const ort = await import('onnxruntime-web/wasm').catch((cause: unknown) => {
    if (!isNotFound(cause)) throw cause;
    throw new BackendError(
      'BACKEND_UNAVAILABLE',
      `the wasm backend in Node needs onnxruntime-web: run \`npm install ${installSpec('onnxruntime-web')}\``,
      { backend: 'wasm', cause },
    );
  });
  // One thread, whatever was asked: onnxruntime-web's thread pool is made of Web Workers started from a
  // fetched script, which Node cannot give it (the session would fail to load). This backend is the
  // browser's arithmetic in Node, for checking; `native` is the fast one.
  ort.env.wasm.numThreads = 1;
  return sessionRunner('wasm', ort, weights, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
}

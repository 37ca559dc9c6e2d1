// The `wasm` backend in Node: onnxruntime-web's WASM build, the same code a browser runs.
import type { BackendOptions, NodeBackend } from './backend.js';
import { sessionRunner } from '../ort/ort-session.js';
import { defaultThreads } from './threads.js';

export async function createWasmBackend(weights: Uint8Array, options: BackendOptions = {}): Promise<NodeBackend> {
  const ort = await import('onnxruntime-web/wasm');
  // Explicit, so that onnxruntime-web neither guesses nor drops to one thread silently.
  ort.env.wasm.numThreads = options.numThreads ?? defaultThreads();
  return sessionRunner('wasm', ort, weights, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
}

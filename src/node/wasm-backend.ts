// The `wasm` backend in Node: onnxruntime-web's WASM build, the same code a browser runs.
import type { BackendOptions, NodeBackend } from './backend.js';
import { sessionRunner } from '../ort/ort-session.js';

export async function createWasmBackend(weights: Uint8Array, _options: BackendOptions = {}): Promise<NodeBackend> {
  const ort = await import('onnxruntime-web/wasm');
  // One thread, whatever was asked: onnxruntime-web's thread pool is made of Web Workers started from a
  // fetched script, which Node cannot give it (the session would fail to load). This backend is the
  // browser's arithmetic in Node, for checking; `native` is the fast one.
  ort.env.wasm.numThreads = 1;
  return sessionRunner('wasm', ort, weights, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
}

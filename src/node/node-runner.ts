// What runs the model in Node: a session runner (src/ort/ort-session.ts) on one of two backends,
// onnxruntime-node (`native-runner.ts`) or onnxruntime-web (`wasm-runner.ts`).
import type { SessionRunner } from '../ort/ort-session.js';

/** `native` (onnxruntime-node's CPU build) or `wasm` (onnxruntime-web's WASM build, as browsers run it). */
export type NodeBackendName = 'native' | 'wasm';

/** A model session on one of the Node backends. */
export type NodeSessionRunner = SessionRunner<NodeBackendName>;

export interface RunnerOptions {
  /** Threads for the model run. Default: half the cores, at least 1, at most 4. */
  numThreads?: number;
}

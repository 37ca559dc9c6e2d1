// The Node backends: one interface (a SessionRunner), two implementations (onnxruntime-node, onnxruntime-web).
import type { SessionRunner } from '../ort/ort-session.js';

/** `native` (onnxruntime-node's CPU build) or `wasm` (onnxruntime-web's WASM build, as browsers run it). */
export type NodeBackend = SessionRunner<'native' | 'wasm'>;

export interface BackendOptions {
  /** Threads for the model run. Default: half the cores, at least 1, at most 4. */
  numThreads?: number;
}

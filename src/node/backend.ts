// The Node backends: one small interface, two implementations (onnxruntime-node, onnxruntime-web).
import type { BackendName } from '../errors/index.js';
import type { ModelIo } from '../model/index.js';
import type { RunModel } from '../pipeline/index.js';

/**
 * A loaded model that runs one input at a time.
 * - `io`: the model's input and output shapes, for the package shape check.
 * - `run`: `[1, 3, H, W]` float32 in, logits `[1, C, h, w]` out (as `Logits`); runs are serialised by
 *   the caller.
 * - `dispose`: frees the session; `run` must not be called afterwards.
 */
export interface NodeBackend {
  readonly name: Extract<BackendName, 'native' | 'wasm'>;
  readonly io: ModelIo;
  readonly run: RunModel;
  dispose(): Promise<void>;
}

export interface BackendOptions {
  /** Threads for the model run. Default: half the cores, at least 1, at most 4. */
  numThreads?: number;
}

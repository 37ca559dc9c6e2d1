// The `native` backend: onnxruntime-node's CPU build.
import { ort } from './native-modules.js';
import type { BackendOptions, NodeBackend } from './backend.js';
import { defaultThreads } from './threads.js';
import { sessionRunner } from '../ort/ort-session.js';

export function createNativeBackend(weights: Uint8Array, options: BackendOptions = {}): Promise<NodeBackend> {
  return sessionRunner('native', ort, weights, {
    executionProviders: ['cpu'],
    intraOpNumThreads: options.numThreads ?? defaultThreads(),
    graphOptimizationLevel: 'all',
  });
}

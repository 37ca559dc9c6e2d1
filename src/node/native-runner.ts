// The `native` backend's session runner: onnxruntime-node's CPU build.
import { ort } from './native-modules.js';
import type { NodeSessionRunner, RunnerOptions } from './node-runner.js';
import { defaultThreads } from './threads.js';
import { sessionRunner } from '../ort/ort-session.js';

export function createNativeRunner(weights: Uint8Array, options: RunnerOptions = {}): Promise<NodeSessionRunner> {
  return sessionRunner('native', ort, weights, {
    executionProviders: ['cpu'],
    intraOpNumThreads: options.numThreads ?? defaultThreads(),
    graphOptimizationLevel: 'all',
  });
}

// What live video and the tests reach inside a Segmenter, kept off its public class: a registry by
// segmenter, filled as each is made. The package's entries do not export it.
import { injectBackendFault } from './faults.js';
import type { Fault } from './protocol.js';
import type { CompanionWorker, WorkerBackend, WorkerHandle } from './worker-backend.js';

/** The worker that runs the model, for live video. */
export interface VideoWorker extends WorkerHandle {
  /** Starts another worker of the same script, with no model, for the frame loop; resolves once it answers. */
  companion(): Promise<CompanionWorker>;
}

/** A segmenter's internals. */
export interface SegmenterInternals {
  /** The worker's remote, or null where the hosted route runs. */
  videoWorker(): VideoWorker | null;
  /**
   * Live video's recovery, as a call's: a worker that died (`crashed`) is replaced on the same backend; a
   * backend that failed while running (`failed`) is left for the next one. Resolves true when a new worker
   * runs the model, false when there is no backend to move to.
   */
  recoverVideo(failure: 'crashed' | 'failed', error: Error): Promise<boolean>;
  /** The backend that runs the model where it is a worker's (null for the hosted route): the tests' faults go there. */
  workerBackend(): WorkerBackend | null;
}

const registry = new WeakMap<object, SegmenterInternals>();

export function registerSegmenterInternals(segmenter: object, internals: SegmenterInternals): void {
  registry.set(segmenter, internals);
}

export function segmenterInternals(segmenter: object): SegmenterInternals {
  const internals = registry.get(segmenter);
  if (!internals) throw new Error('not a segmenter of this module');
  return internals;
}

/**
 * Test hook: makes `segmenter`'s worker fail its next run, or die (see `Fault`). Only the source tree
 * plays faults (faults.ts, and the worker's own); the packaged build has no fault injection.
 */
export async function injectFault(segmenter: object, fault: Fault): Promise<void> {
  const backend = segmenterInternals(segmenter).workerBackend();
  if (backend) await injectBackendFault(backend, fault);
}

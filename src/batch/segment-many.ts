// What `segmentMany` means in the browser and in Node: its options, its results, and their checks.
import { BackendError, EdgesegError, InvalidInputError, isEdgesegError, type BackendName } from '../errors/index.js';
import { DEFAULT_CONFIDENCE, validateConfidence } from '../pipeline/confidence.js';

/** What `segmentMany` takes, in the browser and in Node. */
export interface SegmentManyOptions {
  /**
   * Sources in flight or finished and waiting to be taken, at most (an integer ≥ 1). In Node the default
   * follows the cores: 2 on 2 cores, 3 on 4, 4 from 6 on (`defaultBatchConcurrency()`): decoding and
   * encoding overlap the model runs, which take turns on the one session. In the browser the default is
   * 2: a segmenter runs one call at a time, so more only queues images ahead of the worker.
   * @default 2 in the browser; `defaultBatchConcurrency()` in Node
   */
  concurrency?: number;
  /**
   * 0–100, as each call's.
   * @default 50
   */
  confidence?: number;
  /** Stops the batch: no new source starts, those in flight are abandoned, and the iterator throws `EdgesegAbortError`. */
  signal?: AbortSignal;
}

/**
 * One source's outcome from `segmentMany`, in the order of the sources. `index` counts from 0. `T` is
 * what a successful call gives: the payload and its timings (browser), or all of `segmentDetailed`
 * (Node, where the decoded pixels and the mask PNG are in the caller's process).
 */
export type SegmentManyOutcome<S, T, E extends Error = EdgesegError> =
  | ({
      /** The source was segmented. */
      ok: true;
      /** The source's place among the sources, from 0. */
      index: number;
      /** The source, as given. */
      source: S;
    } & T)
  | {
      /** The source failed; the batch went on. */
      ok: false;
      /** The source's place among the sources, from 0. */
      index: number;
      /** The source, as given. */
      source: S;
      /** Why, with its code. */
      error: E;
    };

/** The batch's concurrency and confidence, checked at the call: `OPTION_INVALID` or `CONFIDENCE_INVALID`. */
export function batchSettings(options: SegmentManyOptions, defaultConcurrency: number): { concurrency: number; confidence: number } {
  const concurrency = options.concurrency ?? defaultConcurrency;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new InvalidInputError('OPTION_INVALID', `concurrency must be an integer ≥ 1, got ${concurrency}`);
  }
  return { concurrency, confidence: validateConfidence(options.confidence ?? DEFAULT_CONFIDENCE) };
}

/**
 * An error that is not edgeseg's own (a bug, a failure of a library) becomes BACKEND_FAILED, so every
 * failure has a code. `keep` lets other coded errors through (the platform's, from the hosted route).
 */
export function asEdgesegError<E extends Error = EdgesegError>(
  error: unknown,
  backend: BackendName,
  keep?: (error: unknown) => error is E,
): EdgesegError | E {
  if (isEdgesegError(error) || keep?.(error)) return error;
  return new BackendError('BACKEND_FAILED', error instanceof Error ? error.message : String(error), { backend, cause: error });
}

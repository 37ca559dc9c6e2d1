// The one small interface every backend implements, documented in one place.
import type { BackendName } from '../errors/index.js';
import type { RawSegmentation, SegmentationPayload } from '../payload/index.js';
import type { Timings } from '../pipeline/index.js';
import type { ImageSource } from './image-source.js';

export type { Timings };

export interface BackendCallOptions {
  confidence: number;
  signal?: AbortSignal;
  /** Keep an encoded copy of the image if the run fails, so the next backend can retry the call. */
  wantRetry: boolean;
  /** `segmentRaw`: also the subject's soft alpha (RawSegmentation's `alpha`). */
  alpha?: boolean;
}

/** A backend's answer to one call. A failure of the backend itself carries the image back for a retry. */
export type BackendOutcome<T> = { ok: true; value: T; timings: Timings } | { ok: false; error: Error; retry?: ImageSource };

/**
 * A way to run the model: `webgpu` and `wasm` run it in a worker with onnxruntime-web; `hosted` sends the
 * image to the platform's hosted route.
 * - `segment` returns the hosted route's payload; `segmentRaw` the class ids without a PNG.
 * - A `BackendError` in an outcome with the image handed back (`retry`) means this backend failed while
 *   running (device lost, shader error, out of memory): the segmenter moves the call, and later calls, to
 *   the next backend. `WORKER_CRASHED` (the worker died during the call, taking the image with it; the
 *   next call gets a fresh worker) and `DISPOSED` are thrown to the caller, as is any other error (bad
 *   image, bad confidence).
 * - `dispose` frees the backend's resources; nothing may be called afterwards.
 */
export interface Backend {
  readonly name: Exclude<BackendName, 'native'>;
  segment(source: ImageSource, options: BackendCallOptions): Promise<BackendOutcome<SegmentationPayload>>;
  segmentRaw(source: ImageSource, options: BackendCallOptions): Promise<BackendOutcome<RawSegmentation>>;
  dispose(): Promise<void>;
}

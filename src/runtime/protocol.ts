// The segmentation worker's protocol (workers/segment-worker.ts): what the runtime may ask, and what comes
// back. Images and results move by transfer; errors come back with their class and code (see error-transfer.ts).
import type { InputSize } from '../model/input-size.js';
import type { DownloadProgress, ModelSpec, PackageFiles } from '../model/index.js';
import type { RawSegmentation, SegmentationPayload } from '../payload/index.js';
import type { StageTimings } from '../pipeline/index.js';
import type { SerializedError } from './error-transfer.js';
import type { VideoWorkerApi } from '../video/protocol.js';

/** The two backends that run in the worker. */
export type LocalBackendName = 'webgpu' | 'wasm';

/** Where the worker gets the model package. */
export type WorkerModelSource =
  /** A package folder URL (the platform's export layout). */
  | { kind: 'url'; baseUrl: string }
  /** Files handed over in memory. */
  | { kind: 'files'; files: PackageFiles }
  /** Individual file URLs, as the platform's `ort` route gives them, plus files known already (class names). */
  | { kind: 'urls'; urls: Record<string, string>; files: PackageFiles };

/** onnxruntime-web for one backend, by URL: its self-contained ES module and the WASM binary it runs. */
export interface OrtFiles {
  module: string;
  binary: string;
  /** The binary is gzip-compressed: the worker fetches it, inflates it (unless the host sent it decoded) and hands the bytes over. */
  gzip?: true;
  /** The binary's size in bytes (inflated), where known: another size is RUNTIME_FILE_INVALID. */
  bytes?: number;
  /** What a RUNTIME_FILE_MISSING or RUNTIME_FILE_INVALID error tells the user to do when these files are not there, or not right. */
  fix?: string;
}

export interface LoadRequest {
  model: WorkerModelSource;
  backend: LocalBackendName;
  /** Where the backend's onnxruntime-web files are; absent where the bundler that built the worker resolved onnxruntime-web. */
  ort?: OrtFiles;
  /** WASM threads (ignored by WebGPU except for its CPU fallback kernels). */
  numThreads: number;
  /** Keep downloaded files in Cache Storage. */
  cache: boolean;
  /** The network input size asked for (`SegmenterOptions.inputSize`). */
  inputSize?: InputSize;
}

export interface LoadResult {
  spec: ModelSpec;
  warnings: string[];
  backend: LocalBackendName;
  numThreads: number;
  /** onnxruntime-web's module was re-bundled by the app's bundler (Parcel): its WASM runs on one thread. */
  rebundled?: true;
  /** The WebGPU adapter's vendor / architecture, when WebGPU was loaded. */
  adapter?: string;
}

/** An image on its way into the worker. */
export type WorkerImage =
  | { kind: 'bytes'; bytes: Uint8Array }
  | { kind: 'blob'; blob: Blob }
  | { kind: 'url'; url: string }
  | { kind: 'bitmap'; bitmap: ImageBitmap }
  | { kind: 'pixels'; data: Uint8ClampedArray; width: number; height: number }
  | { kind: 'frame'; frame: VideoFrame };

export interface SegmentRequest {
  image: WorkerImage;
  confidence: number;
  /** `payload`: the hosted route's JSON shape (PNG encoded in the worker); `raw`: class ids. */
  output: 'payload' | 'raw';
  maxPixels: number;
  /** Send back an encoded copy of the image if the run fails, for the next backend to retry with. */
  wantRetry: boolean;
  /** With `output: 'raw'`: the subject's soft alpha too. */
  alpha?: boolean;
}

export interface SegmentTimings extends StageTimings {
  decode: number;
  encode: number;
}

export type SegmentOutcome =
  | { ok: true; payload?: SegmentationPayload; raw?: RawSegmentation; timings: SegmentTimings }
  | {
      ok: false;
      error: SerializedError;
      /** The image, encoded, when the failure was the backend's and `wantRetry` was set. */
      retry?: Uint8Array;
    };

/**
 * Faults a test can inject: `run` fails the next run (as a lost device would); `crash` makes the worker
 * die silently before the next call; during the next run, `crash-in-run` makes it die silently (as a
 * worker the browser kills), `error-in-run` throws an uncaught error and never answers, `hang-in-run`
 * never finishes (as a hung device), and `block-in-run` blocks the worker's thread for good (as Firefox
 * sometimes leaves it when onnxruntime-web starts its threads); `block-in-load` makes the next worker
 * started block so while it loads; `slow-runs` adds 150 ms to every run from then on (a model slower
 * than the frames that come).
 */
export type Fault = 'run' | 'crash' | 'crash-in-run' | 'error-in-run' | 'hang-in-run' | 'block-in-run' | 'block-in-load' | 'slow-runs';

/** Live video (createVideoEffect) runs its frame loop in this worker too: see src/video/protocol.ts. */
export interface WorkerApi extends VideoWorkerApi {
  /**
   * Takes the Web Lock `name` and holds it for the worker's life, so the main thread learns of the worker's
   * death from the lock's release. Resolves once the lock is held; false where Web Locks are missing.
   */
  holdLifeline(name: string): Promise<boolean>;
  load(request: LoadRequest, onProgress?: (progress: DownloadProgress) => void): Promise<LoadResult>;
  segment(request: SegmentRequest): Promise<SegmentOutcome>;
  /** Answers at once when the worker is alive and idle. */
  ping(): Promise<'pong'>;
  /** Arms a fault (tests); synchronous in the worker, a promise through comlink. */
  injectFault(fault: Fault): void;
  dispose(): Promise<void>;
}

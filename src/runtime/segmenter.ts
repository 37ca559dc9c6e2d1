// The browser segmenter: runs a model package in a worker on WebGPU or WASM, or on the hosted route,
// in the caller's order of preference, falling back when a backend cannot load or fails while running.
import { checkInputSizeOption, type InputSize } from '../model/input-size.js';
import { BackendError, EdgesegAbortError, InvalidInputError, type BackendName, type EdgesegError } from '../errors/index.js';
import type { DownloadProgress, ModelSpec, PackageFiles } from '../model/index.js';
import type { RawSegmentation, SegmentationPayload } from '../payload/index.js';
import { DEFAULT_CONFIDENCE, validateConfidence } from '../pipeline/confidence.js';
import { pixelLimit } from '../decode/image-header.js';
import { asEdgesegError, batchSettings, type SegmentManyOptions, type SegmentManyOutcome } from '../batch/segment-many.js';
import { orderedPool } from '../batch/ordered-pool.js';
import { isPlatformError } from '../platform/errors/guards.js';
import type { PlatformError } from '../platform/errors/platform-error.js';
import type { PlatformClient } from '../platform/platform-client.js';
import type { LocalBackendName, WorkerModelSource } from './protocol.js';
import type { Backend, BackendOutcome, Timings } from './backend.js';
import { HostedBackend, hostedUnavailable } from './hosted-backend.js';
import type { ImageSource } from './image-source.js';
import { checkRuntimeFile } from './runtime-file-check.js';
import { BUNDLED_BACKENDS, bundledFiles, startBundledWorker } from './runtime-files.js';
import { isAngularPage, withFrameworkFix } from './framework-fix.js';
import { runtimeLocations, type RuntimeLocation } from './runtime-location.js';
import { browserThreadPlan, checkNumThreads, type ThreadChoice, type ThreadUse } from './threads.js';
import { versionModelSource, type VersionRef } from './version-model.js';
import { isBundledModel, refuseModelWord, type BundledModel } from '../model/bundled-model.js';
import { bundledModelSource } from './bundled-model-source.js';
import { registerSegmenterInternals, type VideoWorker } from './segmenter-internals.js';
import { webgpuAdapter } from './webgpu-adapter.js';
import { WorkerBackend } from './worker-backend.js';

export type { SegmentManyOptions, VersionRef };

/** The backends of the browser's segmenter: `webgpu` and `wasm` (onnxruntime-web in a worker) and `hosted` (the platform's route). */
export type RuntimeBackendName = Exclude<BackendName, 'native'>;

/** Why a backend was left (at start or while running), or a limit that applies. */
export interface Fallback {
  /** The backend that was left, or that the limit applies to. */
  backend: RuntimeBackendName;
  /** A stable code: an error's code (BACKEND_UNAVAILABLE, BACKEND_FAILED, MODEL_LOAD_FAILED, …), or NOT_ISOLATED / NO_SHARED_MEMORY / RUNTIME_REBUNDLED (WASM on one thread). */
  code: string;
  /** Why, for people: the error's message, or what limits the backend and how to lift it. */
  message: string;
}

/** What `createSegmenter` runs, where, and how: the model, the backends in order, the platform, the runtime's files. */
export interface SegmenterOptions {
  /**
   * A package folder URL (a string, or `{ url }` as in `edgeseg/node`), a bundled model
   * (`import people from 'edgeseg/models/people'`), the package's files in memory, or a platform version.
   * A string is a URL here, resolved against the page, and a word (a bundled model's name:
   * `MODEL_NOT_IMPORTED`, naming the import) is refused: a folder is written with a slash (`'./people/'`).
   */
  model:
    | string
    | BundledModel
    | {
        /** The package folder's URL, resolved against the page. */
        url: string | URL;
      }
    | {
        /** The package's files by name (`weights.onnx`, `class_names.txt`, …), in memory. */
        files: PackageFiles;
      }
    | VersionRef;
  /** For model resolution of a version and for the hosted route. */
  platform?: PlatformClient;
  /**
   * Tried in this order; the first that loads the model runs it, and one that fails while running hands
   * the call to the next.
   * @default ['webgpu', 'wasm', 'hosted'] (`edgeseg/wasm`: ['wasm', 'hosted'])
   */
  backends?: RuntimeBackendName[];
  /**
   * The hosted route's project and version.
   * @default the `model`'s, when it is a platform version
   */
  hosted?: {
    /** The project's URL slug. */
    project: string;
    /** The version number. */
    version: number;
  };
  /**
   * WASM threads, a whole number from 1 to 64 (else OPTION_INVALID). `threads` says what ran and why.
   * @default half the cores, at least 1, at most 4 (for `createVideoEffect`, one fewer: its frame loop has a worker of its own), where the page is cross-origin isolated and has SharedArrayBuffer; 1 otherwise, with a note in `fallbacks`
   */
  numThreads?: number;
  /** Byte progress of model downloads. */
  onProgress?: (progress: DownloadProgress) => void;
  /**
   * Larger images are refused with IMAGE_TOO_LARGE.
   * @default 50000000
   */
  maxPixels?: number;
  /**
   * The network input size to run at, where the package says its model takes other sizes
   * (`dynamic_spatial_size_supported`): rounded up to a multiple of `dynamic_spatial_size_mode.value`, or as
   * given for `any-size`, as the platform's inference server takes an `image_size`. Elsewhere ignored, with a
   * warning (`seg.warnings`). The hosted route runs at the package's size.
   * @default the package's `training_input_size`
   */
  inputSize?: InputSize;
  /**
   * Keep downloaded model files in Cache Storage, so that a second start works offline.
   * @default true
   */
  cache?: boolean;
  /**
   * The folder that `npx edgeseg copy-runtime <folder>` filled (edgeseg's worker and onnxruntime-web's
   * files), as the page reaches it (`'/edgeseg/'`): for bundlers that copy no files (esbuild, Rollup).
   * `workerUrl` and `wasmPaths`, where given, win over it.
   * @default where the bundler or the package put the files
   */
  runtimeUrl?: string | URL;
  /**
   * Where edgeseg's worker script (`segment-worker.js` of the browser build) is, when not where the bundler or the package put it.
   * @default where the bundler or the package put it
   */
  workerUrl?: string | URL;
  /**
   * The folder that holds onnxruntime-web's files as edgeseg ships them (`ort.wasm.bundle.min.mjs`,
   * `ort-wasm-simd-threaded.wasm`; for WebGPU `ort.jspi.bundle.min.mjs`, `ort-wasm-simd-threaded.jspi.wasm`,
   * `ort.webgpu.bundle.min.mjs`, `ort-wasm-simd-threaded.asyncify.wasm.gz`), when not where the bundler
   * or the package put them (a CDN, another static folder).
   * @default where the bundler or the package put them
   */
  wasmPaths?: string | URL;
}

/**
 * One source's outcome from `segmentMany`, in the order of the sources. `index` counts from 0. Node's
 * result also carries the decoded pixels, the mask PNG and the class ids (`segmentDetailed`): in the
 * browser those stay in the worker, and only the payload crosses back.
 */
export type SegmentManyResult<S> = SegmentManyOutcome<
  S,
  {
    /** The source's payload. */
    payload: SegmentationPayload;
    /** The time of each stage of its call. */
    timings: Timings;
  },
  EdgesegError | PlatformError
>;

/** What each call of a browser {@link Segmenter} takes. */
export interface SegmentCallOptions {
  /**
   * 0–100: a pixel whose most probable class is less sure than `confidence / 100` is background.
   * @default 50
   */
  confidence?: number;
  /** Aborts the call: it rejects with `EdgesegAbortError`, and a call still waiting its turn leaves the queue. */
  signal?: AbortSignal;
  /**
   * `segmentRaw`: also give `alpha`, the subject's soft alpha at the image's size (0–255): the model's
   * probability upsampled with edge refinement guided by the image, for a cutout whose edge follows the
   * picture's. The class ids are the same either way. On the hosted route, which answers with class ids
   * only, it is the class-id mask's (0 or 255). `segment` and `segmentMany` ignore it.
   * @default false
   */
  alpha?: boolean;
}

export type { VideoWorker };

const LOCAL: readonly RuntimeBackendName[] = ['webgpu', 'wasm'];

/** Fallback codes that say why WASM runs on one thread: notes, not failures. */
const ONE_THREAD_NOTES: readonly string[] = ['NOT_ISOLATED', 'NO_SHARED_MEMORY', 'RUNTIME_REBUNDLED'];

const REBUNDLED =
  "the bundler re-bundled onnxruntime-web's module (Parcel does), which fixes its import.meta.url at build time: WASM runs on one thread; for threads, have the bundler copy edgeseg's runtime files as they are (see edgeseg's docs/apps.md)";

/**
 * A model in a worker (WebGPU or WASM), or the hosted route, in the caller's order of preference; made by
 * `createSegmenter`. The same calls as `edgeseg/node`'s segmenter (`segment`, `segmentRaw`, `segmentMany`)
 * but `segmentDetailed`: here the decoded pixels and the class ids stay in the worker unless asked for
 * (`segmentRaw`), so `segment` returns the payload alone and `lastTimings` the time of each stage.
 */
export class Segmenter {
  #order: RuntimeBackendName[];
  #index = -1;
  #backend: Backend | null = null;
  #fallbacks: Fallback[] = [];
  #spec: ModelSpec | null = null;
  #warnings: readonly string[] = [];
  #threads: ThreadChoice;
  #adapter: string | undefined;
  #lastTimings: Timings | null = null;
  #disposed = false;
  #queue: Array<() => void> = [];
  #running = false;
  #restarts = 0;
  /** Rejects with DISPOSED on dispose, so that a call in flight settles whatever its backend does. */
  #disposal: Promise<never>;
  #announceDisposal: (error: BackendError) => void = () => undefined;

  private constructor(
    private readonly options: SegmenterOptions,
    private readonly modelSource: WorkerModelSource | Error,
    order: RuntimeBackendName[],
    threads: ThreadChoice,
  ) {
    this.#order = order;
    this.#threads = threads;
    this.#disposal = new Promise<never>((_, reject) => (this.#announceDisposal = reject));
    this.#disposal.catch(() => undefined);
    // Live video's and the tests' way in, off the public class (src/runtime/segmenter-internals.ts).
    registerSegmenterInternals(this, {
      videoWorker: () => this.#videoWorker(),
      recoverVideo: (failure, error) => this.#recoverVideo(failure, error),
      workerBackend: () => (this.#backend instanceof WorkerBackend ? this.#backend : null),
    });
  }

  /** @internal — use createSegmenter (`use`: what the default thread count is for; live video passes `'video'`). */
  static async create(options: SegmenterOptions, use: ThreadUse = 'stills'): Promise<Segmenter> {
    const order = checkOptions(options);
    const threads = browserThreadPlan(
      options.numThreads,
      order.some((b) => LOCAL.includes(b)),
      use,
    );
    let source: WorkerModelSource | Error;
    try {
      source = await resolveModel(options);
    } catch (error) {
      // A caller's mistake is theirs; a model that cannot be resolved leaves the hosted route to try.
      if (error instanceof InvalidInputError || !(error instanceof Error)) throw error;
      source = error;
    }
    const seg = new Segmenter(options, source, order, threads.choice);
    if (threads.oneThread) seg.#fallbacks.push({ backend: 'wasm', ...threads.oneThread });
    await seg.#startFrom(0);
    return seg;
  }

  /** The backend in use. */
  get backend(): RuntimeBackendName {
    return this.#order[this.#index]!;
  }

  /** Why each earlier backend was left, in order. */
  get fallbacks(): readonly Fallback[] {
    return this.#fallbacks;
  }

  /** The model package's spec (classes, preprocessing); null when only the hosted route runs. */
  get spec(): ModelSpec | null {
    return this.#spec;
  }

  /**
   * What the package asked for that edgeseg runs otherwise, as the platform's server does (a resize format
   * it does not know, an `inputSize` the package's model does not take, …); empty when only the hosted route runs.
   */
  get warnings(): readonly string[] {
    return this.#warnings;
  }

  /** The WASM threads the model runs on (1 where the page is not cross-origin isolated; see `fallbacks`, and `threads` for why). */
  get numThreads(): number {
    return this.#threads.numThreads;
  }

  /** How the WASM thread count was chosen: the count, the cores the browser reports, and why. */
  get threads(): ThreadChoice {
    return { ...this.#threads };
  }

  /** The WebGPU adapter's vendor and architecture, when WebGPU runs. */
  get adapter(): string | undefined {
    return this.#adapter;
  }

  /** Stage times of the last successful call. */
  get lastTimings(): Timings | null {
    return this.#lastTimings;
  }

  /** How many times a dead worker was replaced. */
  get workerRestarts(): number {
    return this.#restarts;
  }

  /** The hosted route's payload: `{ segmentation_mask, class_map, image }`. */
  segment(source: ImageSource, options: SegmentCallOptions = {}): Promise<SegmentationPayload> {
    return this.#run(source, options, (b, s, o) => b.segment(s, o)).then((r) => r.value);
  }

  /** Class ids without PNG encoding: `{ classIds, width, height, class_map }`; with `alpha: true`, the subject's soft alpha too. */
  segmentRaw(
    source: ImageSource,
    options: SegmentCallOptions & {
      /** Give the subject's soft alpha as well. */
      alpha: true;
    },
  ): Promise<
    RawSegmentation & {
      /** The subject's soft alpha, 0–255, one a pixel, row-major. */
      alpha: Uint8Array;
    }
  >;
  /** Class ids without PNG encoding: `{ classIds, width, height, class_map }`. */
  segmentRaw(source: ImageSource, options?: SegmentCallOptions): Promise<RawSegmentation>;
  segmentRaw(source: ImageSource, options: SegmentCallOptions = {}): Promise<RawSegmentation> {
    const alpha = options.alpha === true;
    return this.#run(source, options, (b, s, o) => b.segmentRaw(s, { ...o, alpha })).then((r) => r.value);
  }

  /**
   * Each source's payload (or its error), yielded in the order of the sources as soon as it and the ones
   * before it are done, as `segmentMany` of `edgeseg/node`. Calls still run one at a time on this
   * segmenter; `concurrency` (default 2) bounds the sources taken and queued ahead, and `sources` is read
   * only as slots free up, so an endless or lazy stream (camera frames) works. A source that fails gives
   * `{ ok: false, error }` (an `EdgesegError`, or the platform's error on the hosted route) and the batch
   * goes on; an abort through `signal` ends it by throwing `EdgesegAbortError`. Breaking out of the loop
   * abandons what is in flight. Throws `OPTION_INVALID` or `CONFIDENCE_INVALID` at once for a bad option.
   */
  segmentMany<S extends ImageSource>(
    sources: Iterable<S> | AsyncIterable<S>,
    options: SegmentManyOptions = {},
  ): AsyncGenerator<SegmentManyResult<S>, void, undefined> {
    const { concurrency, confidence } = batchSettings(options, 2);
    const one = async (source: S, index: number, stop: AbortSignal): Promise<SegmentManyResult<S>> => {
      try {
        const { value: payload, timings } = await this.#run(source, { confidence, signal: stop }, (b, s, o) => b.segment(s, o));
        return { ok: true, index, source, payload, timings };
      } catch (error) {
        // An abort ends the whole batch (the pool throws it); anything else belongs to this source alone.
        if (stop.aborted) throw error;
        return { ok: false, index, source, error: asEdgesegError(error, this.backend, isPlatformError) };
      }
    };
    return orderedPool(sources, one, { concurrency, ...(options.signal ? { signal: options.signal } : {}) });
  }

  /**
   * Ends the worker and frees the model. Calls in flight or waiting reject with `BackendError` `DISPOSED`,
   * as do later ones; a second `dispose` does nothing.
   */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#announceDisposal(disposedError());
    for (const start of this.#queue.splice(0)) start();
    await this.#backend?.dispose();
    this.#backend = null;
  }

  /** The worker's remote, or null where the hosted route runs. */
  #videoWorker(): VideoWorker | null {
    const backend = this.#backend;
    const handle = backend instanceof WorkerBackend ? backend.handle() : null;
    return handle && { ...handle, companion: () => (backend as WorkerBackend).companion() };
  }

  /**
   * Live video's recovery, as a call's: a worker that died (`crashed`) is replaced on the same
   * backend; a backend that failed while running (`failed`) is left for the next one, which starts while
   * the old one still runs (its loop reuses the last good mask meanwhile) and is disposed once it has.
   * Resolves true when a new worker runs the model, false when there is no backend to move to.
   */
  #recoverVideo(failure: 'crashed' | 'failed', error: Error): Promise<boolean> {
    return this.#enqueue(undefined, async () => {
      const backend = this.#backend;
      if (!(backend instanceof WorkerBackend)) return false;
      if (failure === 'crashed') {
        await backend.revive();
        return true;
      }
      const [index, noted] = [this.#index, this.#fallbacks.length];
      if (index >= this.#order.length - 1) return false;
      this.#fallbacks.push({ backend: backend.name, code: (error as { code?: string }).code ?? 'BACKEND_FAILED', message: error.message });
      try {
        await this.#startFrom(index + 1);
      } catch {
        // No next backend runs here: the old one stays (its loop keeps the last good mask), its note with it.
        this.#backend = backend;
        this.#index = index;
        this.#fallbacks.splice(noted, 1);
        return false;
      }
      await backend.dispose();
      return true;
    });
  }

  async #startFrom(first: number): Promise<void> {
    let last: unknown;
    for (let i = first; i < this.#order.length; i++) {
      const name = this.#order[i]!;
      try {
        this.#backend = await this.#createBackend(name);
        this.#index = i;
        return;
      } catch (error) {
        last = error;
        this.#fallbacks.push({
          backend: name,
          code: (error as { code?: string }).code ?? 'BACKEND_UNAVAILABLE',
          message: (error as Error).message,
        });
      }
    }
    this.#backend = null;
    // The last backend's error, with its code, as the cause: a package that no backend can load (a
    // MODEL_FILE_MISSING, say) is then told from backends that cannot run here without reading the message.
    throw new BackendError(
      'NO_BACKEND',
      `no backend could run the model: ${this.#fallbacks
        .filter((f) => !ONE_THREAD_NOTES.includes(f.code))
        .map((f) => `${f.backend}: [${f.code}] ${f.message}`)
        .join('; ')}`,
      last === undefined ? {} : { cause: last },
    );
  }

  async #createBackend(name: RuntimeBackendName): Promise<Backend> {
    if (name === 'hosted') {
      const target =
        this.options.hosted ??
        (isVersionRef(this.options.model) ? { project: this.options.model.project, version: this.options.model.version } : null);
      if (!this.options.platform) throw hostedUnavailable('the hosted route needs a PlatformClient (options.platform)');
      if (!target)
        throw hostedUnavailable('the hosted route needs a project and version (options.hosted, or a platform version as the model)');
      return new HostedBackend(this.options.platform, target.project, target.version);
    }
    if (this.modelSource instanceof Error) throw this.modelSource;
    const locations = withFrameworkFix(
      runtimeLocations(bundledFiles(name), this.options, name, globalThis.location?.href),
      isAngularPage(),
    );
    // No worker is started for WebGPU where the page has no adapter: it would fetch a runtime and the model for nothing.
    if (name === 'webgpu') await webgpuAdapter();
    const missing: BackendError[] = [];
    const failedScripts = new Set<string>();
    for (const location of locations) {
      // A worker script that failed at one place fails with any onnxruntime-web files.
      if (location.worker !== undefined && failedScripts.has(location.worker)) continue;
      try {
        const backend = await this.#startWorker(name, location);
        this.#spec = backend.spec;
        this.#warnings = backend.loadResult.warnings;
        this.#adapter = backend.loadResult.adapter;
        if (backend.loadResult.rebundled && this.#threads.numThreads > 1) {
          this.#threads = { numThreads: 1, cores: this.#threads.cores, source: 'one-thread', reason: REBUNDLED };
          this.#fallbacks.push({ backend: 'wasm', code: 'RUNTIME_REBUNDLED', message: REBUNDLED });
        }
        return backend;
      } catch (error) {
        // A worker whose script did not load says only that it failed: ask the host what it answered.
        const checked =
          location.worker && (error as { code?: string }).code === 'WORKER_CRASHED'
            ? await checkRuntimeFile(location.worker, "edgeseg's worker script", name, { fix: location.fix })
            : null;
        if (checked && location.worker) failedScripts.add(location.worker);
        const why = checked ?? error;
        if (!RUNTIME_FILE_CODES.includes((why as { code?: string }).code ?? '')) throw why;
        missing.push(why as BackendError);
      }
    }
    throw missingEverywhere(missing);
  }

  #startWorker(name: LocalBackendName, { worker, ort, fix }: RuntimeLocation): Promise<WorkerBackend> {
    return WorkerBackend.start(name, {
      load: {
        model: this.modelSource as WorkerModelSource,
        numThreads: this.#threads.numThreads,
        cache: this.options.cache ?? true,
        ...(this.options.inputSize ? { inputSize: this.options.inputSize } : {}),
        ...(ort ? { ort: { ...ort, fix } } : {}),
      },
      maxPixels: pixelLimit(this.options.maxPixels),
      createWorker: worker === undefined ? startBundledWorker : () => new Worker(worker, { type: 'module' }),
      ...(this.options.onProgress ? { onProgress: this.options.onProgress } : {}),
      onRestart: () => this.#restarts++,
      ...(worker === undefined
        ? {}
        : {
            silentScript: () =>
              new BackendError(
                'RUNTIME_FILE_MISSING',
                `edgeseg's worker script at ${worker} runs but never answered: it is another file, not edgeseg's segment-worker.js; ${fix}`,
                { backend: name },
              ),
          }),
    });
  }
  async #run<T>(
    source: ImageSource,
    options: SegmentCallOptions,
    call: (b: Backend, s: ImageSource, o: { confidence: number; signal?: AbortSignal; wantRetry: boolean }) => Promise<BackendOutcome<T>>,
  ): Promise<{ value: T; timings: Timings }> {
    const confidence = validateConfidence(options.confidence ?? DEFAULT_CONFIDENCE);
    return this.#enqueue(options.signal, async () => {
      let image = source;
      for (;;) {
        if (this.#disposed || !this.#backend) throw disposedError();
        const backend = this.#backend;
        const wantRetry = this.#index < this.#order.length - 1;
        const outcome = await Promise.race([
          call(backend, image, { confidence, wantRetry, ...(options.signal ? { signal: options.signal } : {}) }),
          this.#disposal,
        ]);
        if (outcome.ok) {
          this.#lastTimings = outcome.timings;
          return { value: outcome.value, timings: outcome.timings };
        }
        const { error } = outcome;
        const code = (error as { code?: string }).code;
        if (error.name !== 'BackendError' || code === 'WORKER_CRASHED' || outcome.retry === undefined || !wantRetry) throw error;
        // The backend failed while running: leave it, and give this call to the next one.
        this.#fallbacks.push({ backend: backend.name, code: code ?? 'BACKEND_FAILED', message: error.message });
        await backend.dispose();
        this.#backend = null;
        await this.#startFrom(this.#index + 1);
        image = outcome.retry;
      }
    });
  }

  /** One call at a time; each waits its turn, and an abort while waiting takes it out of the line. */
  #enqueue<T>(signal: AbortSignal | undefined, task: () => Promise<T>): Promise<T> {
    if (this.#disposed) return Promise.reject(disposedError());
    if (signal?.aborted) return Promise.reject(new EdgesegAbortError(undefined, { cause: signal.reason }));
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        const i = this.#queue.indexOf(start);
        if (i >= 0) this.#queue.splice(i, 1);
        reject(new EdgesegAbortError(undefined, { cause: signal?.reason }));
      };
      const start = () => {
        if (this.#disposed) {
          reject(disposedError());
          return;
        }
        this.#running = true;
        task()
          .then(resolve, reject)
          .finally(() => {
            signal?.removeEventListener('abort', onAbort);
            this.#running = false;
            this.#queue.shift()?.();
          });
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      if (this.#running) this.#queue.push(start);
      else start();
    });
  }
}

/**
 * A segmenter for the model: tries each backend in order (default webgpu, wasm, hosted) until one
 * loads it. Rejects with `BackendError('NO_BACKEND')` (the reasons in its message) if none can.
 *
 * @param options - The model (required) and how to run it.
 * @returns A segmenter whose model is loaded on the first backend that could load it (`segmenter.backend`).
 * @throws {@link InvalidInputError} `OPTION_INVALID` for a missing model or a bad option, `MODEL_NOT_IMPORTED`
 * for a bundled model's name given as a string; {@link BackendError} `NO_BACKEND` when no backend can run it.
 *
 * @example
 * The bundled people model, with no account:
 * ```ts
 * import { createSegmenter } from 'edgeseg';
 * import people from 'edgeseg/models/people';
 *
 * const segmenter = await createSegmenter({ model: people });
 * const payload = await segmenter.segment(imageBlob); // { segmentation_mask, class_map, image }
 * await segmenter.dispose();
 * ```
 *
 * @example
 * A platform version, with the hosted route where no local backend can run it:
 * ```ts
 * import { createSegmenter, PlatformClient } from 'edgeseg';
 *
 * const segmenter = await createSegmenter({
 *   model: { workspace: 'my-workspace', project: 'my-project', version: 3 },
 *   platform: new PlatformClient({ apiKey }),
 * });
 * ```
 */
export function createSegmenter(options: SegmenterOptions): Promise<Segmenter> {
  return Segmenter.create(options);
}

/** What a model may be, as every "missing model" message of the browser's createSegmenter ends. */
const MODEL_FORMS =
  "import people from 'edgeseg/models/people' and pass { model: people }, or a package URL ('./my-model/'), { files }, or { workspace, project, version } with a platform";

function isVersionRef(model: SegmenterOptions['model']): model is VersionRef {
  return typeof model === 'object' && model !== null && 'project' in model && 'version' in model;
}

function checkOptions(options: SegmenterOptions): RuntimeBackendName[] {
  if (typeof options !== 'object' || options === null || options.model === undefined) {
    throw new InvalidInputError('OPTION_INVALID', `createSegmenter needs { model }: ${MODEL_FORMS}`);
  }
  refuseModelWord(options.model, 'createSegmenter');
  const order = options.backends ?? [...BUNDLED_BACKENDS, 'hosted'];
  if (
    !Array.isArray(order) ||
    order.length === 0 ||
    order.some((b) => !['webgpu', 'wasm', 'hosted'].includes(b)) ||
    new Set(order).size !== order.length
  ) {
    throw new InvalidInputError(
      'OPTION_INVALID',
      `backends must be a non-empty list of distinct 'webgpu', 'wasm', 'hosted'; got ${JSON.stringify(order)}`,
    );
  }
  checkNumThreads(options.numThreads);
  pixelLimit(options.maxPixels);
  checkInputSizeOption(options.inputSize);
  return order;
}

async function resolveModel(options: SegmenterOptions): Promise<WorkerModelSource> {
  const { model } = options;
  if (typeof model === 'string') return { kind: 'url', baseUrl: new URL(model, globalThis.location?.href).toString() };
  if (isBundledModel(model)) return bundledModelSource(model);
  if (typeof model === 'object' && model !== null) {
    if ('url' in model) return { kind: 'url', baseUrl: new URL(model.url, globalThis.location?.href).toString() };
    if ('files' in model) return { kind: 'files', files: model.files };
    if (isVersionRef(model)) {
      if (!options.platform)
        throw new InvalidInputError(
          'OPTION_INVALID',
          "a platform version as the model ({ workspace, project, version }) is resolved through the platform: pass { platform: new PlatformClient({ apiKey }) } with it, or a model that needs no account (import people from 'edgeseg/models/people' and pass { model: people })",
        );
      return versionModelSource(options.platform, model, options.cache ?? true);
    }
  }
  throw new InvalidInputError('OPTION_INVALID', `model is none of the forms a model takes: ${MODEL_FORMS}`);
}

/** The codes of a runtime file that is not there, or not as shipped: the next place is tried. */
const RUNTIME_FILE_CODES: readonly string[] = ['RUNTIME_FILE_MISSING', 'RUNTIME_FILE_INVALID'];

/**
 * One error for every place tried: the first place's (its code, and its message, which ends with the
 * fix), and what the others answered.
 */
function missingEverywhere(errors: BackendError[]): BackendError {
  const [first, ...others] = errors;
  if (!first || others.length === 0) return first ?? new BackendError('RUNTIME_FILE_MISSING', 'no place to look for the runtime files');
  const also = others.map((e) => e.message.replace(/; [^;]*$/, '')).join('; ');
  return new BackendError(first.code, `${first.message} (also tried: ${also})`, { backend: first.backend, cause: first });
}

function disposedError(): BackendError {
  return new BackendError('DISPOSED', 'this segmenter was disposed');
}

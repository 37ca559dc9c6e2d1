// edgeseg in Node: a model package run by onnxruntime-node ("native") or onnxruntime-web ("wasm"),
// returning the hosted route's payload.
import { checkInputSizeOption, type InputSize } from '../model/input-size.js';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { BackendError, InvalidInputError, ModelPackageError } from '../errors/index.js';
import { fetchPackageFiles, type DownloadProgress, type ModelSpec, type PackageFiles } from '../model/index.js';
import { loadModel } from '../model/load-model.js';
import { buildPayload, encodeMaskPng, type RawSegmentation, type SegmentationPayload } from '../payload/index.js';
import { asEdgesegError, batchSettings, type SegmentManyOptions, type SegmentManyOutcome } from '../batch/segment-many.js';
import { orderedPool } from '../batch/ordered-pool.js';
import { DEFAULT_CONFIDENCE, segmentPixels, type PixelImage, type Timings } from '../pipeline/index.js';
import type { NodeBackendName, NodeSessionRunner } from './node-runner.js';
import { decodeImage } from '../decode/decode-node.js';
import { directoryPackageCache } from './directory-cache.js';
import { bundledModelDir, DEFAULT_BUNDLED_MODEL, isBundledModelName, type BundledModelName } from './bundled-model.js';
import { isBundledModel, isModelWord, unknownNameError, type BundledModel } from '../model/bundled-model.js';
import { createNativeRunner } from './native-runner.js';
import { readPackageDir } from './read-package-dir.js';
import { defaultBatchConcurrency } from './threads.js';
import { createWasmRunner } from './wasm-runner.js';
import { checkPixelCount, pixelLimit } from '../decode/image-header.js';

export type { NodeBackendName, SegmentManyOptions, Timings };

/** What Node's `createSegmenter` runs, and how: the model, the backends in order, threads, limits, the download cache. */
export interface NodeSegmenterOptions {
  /**
   * A bundled model by name (`people`, the default; `people-landscape`; `shapes`) or as the browser imports
   * it (`import people from 'edgeseg/models/people'`), a package folder (a folder named like a bundled model
   * is written with a slash: `./people`), a package's files in memory, or the base URL of a package
   * (downloaded once, cached). A word that names no bundled model nor a folder is `MODEL_NAME_UNKNOWN`.
   * @default 'people'
   */
  model?:
    | BundledModelName
    | BundledModel
    | (string & {})
    | {
        /** The package's files by name (`weights.onnx`, `class_names.txt`, …), in memory. */
        files: PackageFiles;
      }
    | {
        /** The base URL of a package folder: its files are downloaded once and kept in `cacheDir`. */
        url: string;
      };
  /**
   * Tried in this order; the first that loads the model runs it (`segmenter.backend`). `native` is
   * onnxruntime-node; `wasm` runs onnxruntime-web's WASM build in Node, the browser's arithmetic. The names
   * differ from the browser's (`webgpu`, `wasm`, `hosted`) because the runtimes do: Node has
   * onnxruntime-node and no WebGPU worker or hosted fallback of its own.
   * @default ['native']
   */
  backends?: NodeBackendName[];
  /**
   * The one backend to run, as the first release named it.
   * @deprecated Use `backends: [name]`; `backend` will be removed in the next release.
   */
  backend?: NodeBackendName;
  /**
   * Threads for the model run (`native`). The `wasm` backend always runs one thread in Node (its thread pool needs Web Workers).
   * @default half the cores, at least 1, at most 4
   */
  numThreads?: number;
  /**
   * Larger images are refused with IMAGE_TOO_LARGE.
   * @default 50000000
   */
  maxPixels?: number;
  /**
   * The network input size to run at, where the package says its model takes other sizes
   * (`dynamic_spatial_size_supported`): rounded up to a multiple of `dynamic_spatial_size_mode.value`, or as
   * given for `any-size`, as the platform's inference server takes an `image_size`. Elsewhere ignored, with a
   * warning (`seg.warnings`).
   * @default the package's `training_input_size`
   */
  inputSize?: InputSize;
  /**
   * Folder for packages downloaded by URL.
   * @default `$EDGESEG_CACHE_DIR`, else `$XDG_CACHE_HOME/edgeseg`, else `~/.cache/edgeseg`
   */
  cacheDir?: string;
  /** Told of each file's download, in bytes, as createSegmenter fetches the package. */
  onProgress?: (progress: DownloadProgress) => void;
  /** Aborts creating the segmenter (its download and load): it rejects with an abort error. */
  signal?: AbortSignal;
}

/** An encoded image (path, bytes) or decoded pixels. */
export type NodeImageSource = string | Uint8Array | ArrayBuffer | PixelImage;

/** What each call of a {@link NodeSegmenter} takes. */
export interface SegmentOptions {
  /**
   * 0–100: a pixel whose most probable class is less sure than `confidence / 100` is background.
   * @default 50
   */
  confidence?: number;
  /** Aborts the call: it rejects with `EdgesegAbortError`. */
  signal?: AbortSignal;
  /**
   * `segmentRaw` and `segmentDetailed`: also give `raw.alpha`, the subject's soft alpha at the image's
   * size (0–255): the model's probability upsampled with edge refinement guided by the image, so that the
   * edge follows the picture's edge (a cutout's alpha). The class ids and the payload are the same either
   * way. `segment` ignores it.
   * @default false
   */
  alpha?: boolean;
}

/** The result of `segmentDetailed`. */
export interface DetailedSegmentation {
  /** The hosted route's payload. */
  payload: SegmentationPayload;
  /** The payload's mask PNG, undecoded (`payload.segmentation_mask` is its base64): what a mask file holds. */
  maskPng: Uint8Array;
  /** The class ids (and the alpha, where asked for) before PNG encoding. */
  raw: RawSegmentation;
  /** Every stage runs in Node, so each is there. */
  timings: Required<Timings>;
  /** The decoded pixels, orientation applied (the source itself when it was pixels): what a cutout or an overlay is drawn from. */
  image: PixelImage;
}

/** One source's outcome from `segmentMany`, in the order of the sources. `index` counts from 0. */
export type SegmentManyResult<S> = SegmentManyOutcome<S, DetailedSegmentation>;

/**
 * A model loaded in Node, on onnxruntime-node or onnxruntime-web's WASM build, made by `createSegmenter` of
 * `edgeseg/node`. Calls take turns on the one session; each gets its own answer.
 */
export interface NodeSegmenter {
  /** The backend that runs the model. */
  readonly backend: NodeBackendName;
  /** What the package says about its model: classes, colours, preprocessing. */
  readonly spec: ModelSpec;
  /** The class names in class-id order (`spec.classNames`). */
  readonly classNames: readonly string[];
  /** What the package asked for that edgeseg ran differently (as the platform's server does). */
  readonly warnings: readonly string[];
  /** The hosted route's payload: `{ segmentation_mask, class_map, image }`. */
  segment(source: NodeImageSource, options?: SegmentOptions): Promise<SegmentationPayload>;
  /** The class ids without a PNG; with `alpha: true`, the subject's soft alpha too. */
  segmentRaw(
    source: NodeImageSource,
    options: SegmentOptions & {
      /** Give the subject's soft alpha as well. */
      alpha: true;
    },
  ): Promise<
    RawSegmentation & {
      /** The subject's soft alpha, 0–255, one a pixel, row-major. */
      alpha: Uint8Array;
    }
  >;
  /** The class ids without a PNG. */
  segmentRaw(source: NodeImageSource, options?: SegmentOptions): Promise<RawSegmentation>;
  /** The payload, the class ids, the decoded pixels and the time of each stage in milliseconds. */
  segmentDetailed(source: NodeImageSource, options?: SegmentOptions): Promise<DetailedSegmentation>;
  /**
   * Each source's payload (or its error), yielded in the order of the sources as soon as it and the ones
   * before it are done, with up to `concurrency` sources in flight or waiting to be taken; `sources` is
   * read only as slots free up, so an endless or lazy stream works. A source that fails gives
   * `{ ok: false, error }` (an `EdgesegError` with its `code`) and the batch goes on; an abort through
   * `signal` ends it by throwing `EdgesegAbortError`. Breaking out of the loop abandons what is in flight.
   * Throws `OPTION_INVALID` or `CONFIDENCE_INVALID` at once for a bad option.
   */
  segmentMany<S extends NodeImageSource>(
    sources: Iterable<S> | AsyncIterable<S>,
    options?: SegmentManyOptions & Pick<SegmentOptions, 'alpha'>,
  ): AsyncGenerator<SegmentManyResult<S>, void, undefined>;
  /** Waits for the calls in flight, then frees the session; later calls reject with `BackendError` `DISPOSED`. */
  dispose(): Promise<void>;
}

/**
 * A segmenter for the model in Node: the bundled people model when none is named, on onnxruntime-node
 * unless `backends` says otherwise, returning the hosted route's payload.
 *
 * @param options - The model and how to run it; all optional.
 * @returns A segmenter with the model loaded.
 * @throws {@link InvalidInputError} `OPTION_INVALID` or `MODEL_NAME_UNKNOWN` for a bad option or model name;
 * {@link ModelPackageError} for a package that is missing, malformed or cannot run; {@link BackendError}
 * where no backend starts (the backend's own error where only one was to be tried, else `NO_BACKEND`).
 * (`edgeseg/node` itself does not load without onnxruntime-node and sharp: `NATIVE_MODULE_MISSING`.)
 *
 * @example
 * ```ts
 * import { createSegmenter } from 'edgeseg/node';
 *
 * const segmenter = await createSegmenter(); // the bundled people model; or { model: './my-package' }
 * const { segmentation_mask, class_map, image } = await segmenter.segment('photo.jpg', { confidence: 50 });
 * for await (const r of segmenter.segmentMany(['a.jpg', 'b.png'])) if (!r.ok) console.error(r.source, r.error.code);
 * await segmenter.dispose();
 * ```
 */
export async function createSegmenter(options: NodeSegmenterOptions = {}): Promise<NodeSegmenter> {
  // The type says an object; JavaScript callers pass what they like (a model's name in its place).
  const given: unknown = options;
  if (typeof given !== 'object' || given === null) {
    const model = typeof given === 'string' ? `'${given}'` : "'people'";
    throw new InvalidInputError(
      'OPTION_INVALID',
      `createSegmenter takes its options as an object: createSegmenter({ model: ${model} }), or createSegmenter() for the bundled people model; ${MODEL_FORMS}`,
    );
  }
  checkInputSizeOption(options.inputSize);
  const maxPixels = pixelLimit(options.maxPixels);
  const files = await loadFiles(options);
  const threads = options.numThreads === undefined ? {} : { numThreads: options.numThreads };
  let backendName: NodeBackendName = 'native';
  const { spec, warnings, runner, classMap, model } = await loadModel(
    files,
    async (onnx) => {
      const started = await startRunner(backendOrder(options), onnx.bytes(), threads);
      backendName = started.name;
      return started.runner;
    },
    options.inputSize ? { inputSize: options.inputSize } : {},
  );
  let queue: Promise<unknown> = Promise.resolve();
  let disposed = false;

  const toPixels = async (source: NodeImageSource): Promise<PixelImage> => {
    if (typeof source === 'string') {
      let bytes: Buffer;
      try {
        bytes = await readFile(source);
      } catch (cause) {
        throw new InvalidInputError('IMAGE_SOURCE_INVALID', `could not read ${source}: ${(cause as Error).message}`, { cause });
      }
      return decodeImage(bytes, { maxPixels, keepAlpha: true });
    }
    if (source instanceof ArrayBuffer) return decodeImage(new Uint8Array(source), { maxPixels, keepAlpha: true });
    if (source instanceof Uint8Array) return decodeImage(source, { maxPixels, keepAlpha: true });
    if (typeof source === 'object' && source !== null && 'data' in source && 'width' in source) {
      checkPixelCount(source.width, source.height, maxPixels);
      return source;
    }
    throw new InvalidInputError(
      'IMAGE_SOURCE_INVALID',
      'the source must be a file path, encoded image bytes, or { data, width, height, channels }',
    );
  };

  const raw = async (source: NodeImageSource, opts: SegmentOptions = {}) => {
    if (disposed) throw new BackendError('DISPOSED', 'this segmenter was disposed', { backend: backendName });
    const t0 = performance.now();
    const image = await toPixels(source);
    const decode = performance.now() - t0;
    // One run at a time per session; each call still gets its own answer.
    const run = queue.then(() =>
      segmentPixels(image, model, runner.run, {
        confidence: opts.confidence ?? DEFAULT_CONFIDENCE,
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.alpha ? { alpha: true } : {}),
      }),
    );
    queue = run.catch(() => undefined);
    const result = await run;
    return {
      raw: {
        classIds: result.classIds,
        width: result.width,
        height: result.height,
        class_map: classMap,
        ...(result.alpha ? { alpha: result.alpha } : {}),
      },
      timings: { decode, ...result.timings },
      image,
    };
  };

  const detailed = async (source: NodeImageSource, opts?: SegmentOptions): Promise<DetailedSegmentation> => {
    const start = performance.now();
    const { raw: r, timings, image } = await raw(source, opts);
    const t = performance.now();
    const maskPng = encodeMaskPng(r.classIds, r.width, r.height);
    const payload = buildPayload(r, maskPng);
    const end = performance.now();
    return { payload, maskPng, raw: r, timings: { ...timings, encode: end - t, total: end - start }, image };
  };

  return {
    backend: backendName,
    spec,
    classNames: spec.classNames,
    warnings,
    async segment(source, opts) {
      return buildPayload((await raw(source, opts)).raw);
    },
    // With alpha: true, segmentPixels gives the alpha (the overload's promise).
    segmentRaw: (async (source: NodeImageSource, opts?: SegmentOptions) => (await raw(source, opts)).raw) as NodeSegmenter['segmentRaw'],
    segmentDetailed: detailed,
    segmentMany<S extends NodeImageSource>(
      sources: Iterable<S> | AsyncIterable<S>,
      opts: SegmentManyOptions & Pick<SegmentOptions, 'alpha'> = {},
    ) {
      const { concurrency, confidence } = batchSettings(opts, defaultBatchConcurrency());
      const { signal, alpha = false } = opts;
      const one = async (source: S, index: number, stop: AbortSignal): Promise<SegmentManyResult<S>> => {
        try {
          return { ok: true, index, source, ...(await detailed(source, { confidence, signal: stop, alpha })) };
        } catch (error) {
          // An abort ends the whole batch (the pool throws it); anything else belongs to this source alone.
          if (stop.aborted) throw error;
          return { ok: false, index, source, error: asEdgesegError(error, backendName) };
        }
      };
      return orderedPool(sources, one, { concurrency, ...(signal ? { signal } : {}) });
    },
    async dispose() {
      if (disposed) return;
      disposed = true;
      await queue;
      await runner.dispose();
    },
  };
}

/** The backends to try, in order, from `backends` (or the deprecated `backend`). */
function backendOrder(options: NodeSegmenterOptions): NodeBackendName[] {
  if (options.backends !== undefined && options.backend !== undefined) {
    throw new InvalidInputError('OPTION_INVALID', 'give backends, or the deprecated backend, not both');
  }
  if (options.backends === undefined) {
    const name = options.backend ?? 'native';
    if (name !== 'native' && name !== 'wasm') {
      throw new InvalidInputError('OPTION_INVALID', `backend must be "native" or "wasm", got ${JSON.stringify(name)}`);
    }
    return [name];
  }
  const { backends } = options;
  if (!Array.isArray(backends) || backends.length === 0 || backends.some((b) => b !== 'native' && b !== 'wasm')) {
    throw new InvalidInputError(
      'OPTION_INVALID',
      `backends must be a non-empty list of "native" and "wasm", got ${JSON.stringify(backends)}`,
    );
  }
  return backends;
}

/**
 * The first backend of `order` that starts: a backend that cannot (`BackendError`) is left for the next;
 * with none left, the only backend's error, or `NO_BACKEND` naming each one's reason.
 */
async function startRunner(
  order: NodeBackendName[],
  weights: Uint8Array,
  threads: { numThreads?: number },
): Promise<{ name: NodeBackendName; runner: NodeSessionRunner }> {
  const reasons: string[] = [];
  let last: unknown;
  for (const name of order) {
    try {
      return { name, runner: name === 'native' ? await createNativeRunner(weights, threads) : await createWasmRunner(weights, threads) };
    } catch (error) {
      if (order.length === 1 || !(error instanceof BackendError)) throw error;
      last = error;
      reasons.push(`${name}: [${error.code}] ${error.message}`);
    }
  }
  throw new BackendError('NO_BACKEND', `no backend could run the model: ${reasons.join('; ')}`, { cause: last });
}

async function loadFiles(options: NodeSegmenterOptions): Promise<PackageFiles> {
  const { model = DEFAULT_BUNDLED_MODEL } = options;
  if (isBundledModelName(model)) return readPackageDir(bundledModelDir(model));
  if (isBundledModel(model)) return readPackageDir(bundledModelDir(model.name));
  if (typeof model === 'string') {
    if (isModelWord(model) && !existsSync(model)) throw unknownNameError(model, `./${model}`);
    return readPackageDir(model);
  }
  if (model && typeof model === 'object' && 'files' in model) return model.files;
  if (model && typeof model === 'object' && 'url' in model) {
    return fetchPackageFiles(model.url, {
      cache: directoryPackageCache(options.cacheDir),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }
  throw new ModelPackageError('MODEL_FILE_MISSING', `model is none of the forms a model takes: ${MODEL_FORMS}`);
}

/** What a model may be, as every "missing model" message of Node's createSegmenter ends. */
const MODEL_FORMS =
  "leave model out for the bundled people model, or give a bundled model's name ('people', 'people-landscape', 'shapes') or value (import people from 'edgeseg/models/people' and pass { model: people }), a package folder ('./my-model'), { files }, or { url }";

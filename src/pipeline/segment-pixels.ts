// The whole local path for one decoded image, with the backend (the model run) injected.
import { BackendError, throwIfAborted } from '../errors/index.js';
import { classIdsFromLogits } from './class-ids-from-logits.js';
import { validateConfidence } from './confidence.js';
import { preprocess } from './preprocess.js';
import { subjectAlpha } from './subject-alpha.js';
import type { Logits, PixelImage, PostprocessOptions, PreprocessMeta, PreprocessSpec } from './types.js';
import { isYCbCr, ycbcrToRgb, type YCbCrImage } from './ycbcr.js';

/**
 * Logits that stay where the backend computed them (a GPU): the backend turns them into class ids
 * itself, with the same meaning as classIdsFromLogits, and frees them. `read` copies them out first,
 * for a soft alpha; it must be called before `classIds`, which frees them.
 */
export interface DeviceLogits {
  classIds(meta: PreprocessMeta, options: PostprocessOptions, out?: Uint8Array): Promise<Uint8Array>;
  read?(): Promise<Logits>;
}

/** What a backend does: run the network on one NCHW float32 input. */
export type RunModel = (
  input: { data: Float32Array; dims: [1, 3, number, number] },
  signal?: AbortSignal,
) => Promise<Logits | DeviceLogits>;

/**
 * A backend's own preprocessing (the WebGPU backend's, on the GPU): the same input as preprocess()
 * would give, left where the model runs, with a run of the model on it. Null: this image or this
 * model's preprocessing is left to the CPU.
 */
export type PrepareInput = (image: PixelImage | YCbCrImage, spec: PreprocessSpec) => Promise<PreparedInput | null>;

export interface PreparedInput {
  meta: PreprocessMeta;
  run(signal?: AbortSignal): Promise<Logits | DeviceLogits>;
}

export interface SegmentationModel {
  preprocess: PreprocessSpec;
  classCount: number;
  backgroundClassId: number;
}

export interface StageTimings {
  preprocess: number;
  run: number;
  postprocess: number;
}

/**
 * Time of each stage of one call, in milliseconds: the same type in the browser and in Node. A stage
 * that did not run where the call ran is absent: the hosted route reports only `total` (its stages run
 * on the server). Node's `segmentDetailed` reports every stage (`Required<Timings>`).
 */
export interface Timings {
  /** Reading and decoding the image. */
  decode?: number;
  /** Crop, resize and normalise the pixels into the network's input. */
  preprocess?: number;
  /** The model run. */
  run?: number;
  /** Upsample the logits to the image's size and pick each pixel's class. */
  postprocess?: number;
  /** Encoding the mask PNG (0 for `segmentRaw`). */
  encode?: number;
  /** The whole call as the caller saw it. */
  total: number;
}

export interface PixelSegmentation {
  classIds: Uint8Array;
  /** The subject's soft alpha at the image's size (subjectAlpha), when it was asked for. */
  alpha?: Uint8Array;
  width: number;
  height: number;
  timings: StageTimings;
}

export async function segmentPixels(
  image: PixelImage | YCbCrImage,
  model: SegmentationModel,
  run: RunModel,
  options: {
    confidence: number;
    signal?: AbortSignal;
    input?: Float32Array;
    classIds?: Uint8Array;
    prepare?: PrepareInput;
    /** Also compute the subject's soft alpha (subjectAlpha) from the logits. */
    alpha?: boolean;
  },
): Promise<PixelSegmentation> {
  const confidence = validateConfidence(options.confidence);
  throwIfAborted(options.signal);
  const t0 = performance.now();
  const prepared = (await options.prepare?.(image, model.preprocess)) ?? null;
  const { tensor, meta } = prepared ? { tensor: null, meta: prepared.meta } : preprocess(image, model.preprocess, options.input);
  const t1 = performance.now();
  const logits = tensor
    ? await run({ data: tensor, dims: [1, 3, meta.inputHeight, meta.inputWidth] }, options.signal)
    : await prepared!.run(options.signal);
  throwIfAborted(options.signal);
  const t2 = performance.now();
  const post = { confidence, classCount: model.classCount, backgroundClassId: model.backgroundClassId };
  // The alpha reads the logits before a device's class ids free them.
  const alpha = options.alpha ? await alphaOf(image, logits, meta, post) : undefined;
  const classIds =
    'classIds' in logits ? await logits.classIds(meta, post, options.classIds) : classIdsFromLogits(logits, meta, post, options.classIds);
  const t3 = performance.now();
  return {
    classIds,
    ...(alpha ? { alpha } : {}),
    width: image.width,
    height: image.height,
    timings: { preprocess: t1 - t0, run: t2 - t1, postprocess: t3 - t2 },
  };
}

async function alphaOf(
  image: PixelImage | YCbCrImage,
  logits: Logits | DeviceLogits,
  meta: PreprocessMeta,
  post: PostprocessOptions,
): Promise<Uint8Array> {
  const plain = 'classIds' in logits ? await logits.read?.() : logits;
  if (!plain) throw new BackendError('BACKEND_FAILED', 'this backend keeps its logits on the device and cannot give a soft alpha');
  return subjectAlpha(isYCbCr(image) ? ycbcrToRgb(image) : image, plain, meta, post);
}

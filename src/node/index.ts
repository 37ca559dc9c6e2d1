// edgeseg for Node: the segmenter (onnxruntime-node or onnxruntime-web), image decoding, package I/O.
// Named, on purpose: what a program needs and nothing else (internals stay in their modules).
export {
  createSegmenter,
  type NodeSegmenter,
  type NodeSegmenterOptions,
  type NodeImageSource,
  type SegmentOptions,
  type SegmentManyOptions,
  type SegmentManyResult,
  type DetailedSegmentation,
  type Timings,
  type NodeBackendName,
} from './segmenter.js';
export { decodeImage, type DecodeOptions } from '../decode/decode-node.js';
export { restrictImageLoaders } from './image-loaders.js';
export { readPackageDir } from './read-package-dir.js';
export { BUNDLED_MODELS, type BundledModelName } from './bundled-model.js';
export type { BundledModel } from '../model/bundled-model.js';
export { defaultBatchConcurrency } from './threads.js';

// edgeseg's own errors.
export {
  EdgesegError,
  isEdgesegError,
  type EdgesegErrorOptions,
  type EdgesegErrorCode,
  InvalidInputError,
  type InvalidInputCode,
  ModelPackageError,
  type ModelPackageCode,
  BackendError,
  type BackendCode,
  type BackendName,
  EdgesegAbortError,
  type EdgesegAbortErrorOptions,
  type AbortedCode,
  type LocalPlatformCode,
} from '../errors/index.js';

// The hosted route's payload.
export {
  buildPayload,
  rawFromPayload,
  normalizeHostedPayload,
  decodeMaskPng,
  encodeMaskPng,
  classMapOf,
  base64ToBytes,
  bytesToBase64,
  type RawSegmentation,
  type SegmentationPayload,
} from '../payload/index.js';
export type {
  ModelSpec,
  ModelForm,
  OutputForm,
  TensorLayout,
  DynamicInput,
  PackageFiles,
  PackageGeneration,
  DownloadProgress,
} from '../model/index.js';
export { classColors } from '../model/colors.js';
export type { ContrastType, PixelImage, PreprocessSpec, ResizeMode } from '../pipeline/index.js';
export { IMAGE_FORMATS, type ImageFormat } from '../decode/image-header.js';
export type { SegmentManyOutcome } from '../batch/segment-many.js';

// edgeseg for Node: the segmenter (onnxruntime-node or onnxruntime-web), image decoding, package I/O.
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
export { decodeImage, DEFAULT_MAX_PIXELS, type DecodeOptions } from './decode-image.js';
export { restrictImageLoaders } from './image-loaders.js';
export { readPackageDir } from './read-package-dir.js';
export { BUNDLED_MODELS, DEFAULT_BUNDLED_MODEL, bundledModelDir, type BundledModelName } from './bundled-model.js';
export { defaultBatchConcurrency } from './threads.js';
export { directoryPackageCache, defaultCacheDir } from './directory-cache.js';
export type { NodeBackend, BackendOptions } from './backend.js';
export * from '../errors/index.js';
export * from '../payload/index.js';
export type { ModelSpec, PackageFiles, DownloadProgress } from '../model/index.js';
export { parseModelPackage, classColors } from '../model/index.js';
export type { PixelImage, PreprocessSpec } from '../pipeline/index.js';
export { IMAGE_FORMATS, type ImageFormat } from '../pipeline/image-header.js';

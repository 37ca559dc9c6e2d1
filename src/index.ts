// edgeseg, the browser entry: the segmenter (a worker runs the model), the platform clients, the payload, errors.
export * from './runtime/index.js';
export * from './platform/index.js';
export * from './errors/index.js';
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
} from './payload/index.js';
export type { DownloadProgress, ModelSpec, PackageFiles } from './model/index.js';
export { classColors } from './model/colors.js';
export { IMAGE_FORMATS, type ImageFormat } from './pipeline/image-header.js';
export * from './video/index.js';

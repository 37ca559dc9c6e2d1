// edgeseg, the browser entry: the segmenter (a worker runs the model), the platform clients, the payload, errors.
// Named, on purpose: what an app needs and nothing else (internals and test hooks stay in their modules).

// The segmenter.
export {
  createSegmenter,
  Segmenter,
  type SegmenterOptions,
  type SegmentCallOptions,
  type Fallback,
  type VersionRef,
  type RuntimeBackendName,
  type SegmentManyOptions,
  type SegmentManyResult,
  type ImageSource,
  type Timings,
  type ThreadChoice,
  type ThreadUse,
} from './runtime/index.js';

// The platform's clients, their errors and the answers of its routes.
export {
  PlatformClient,
  type PlatformClientOptions,
  type CallOptions,
  type HostedImage,
  PlatformError,
  type PlatformErrorCode,
  type PlatformErrorOptions,
  AuthenticationError,
  NotFoundError,
  InvalidRequestError,
  PaymentRequiredError,
  RateLimitError,
  ServerError,
  ConnectionError,
  TimeoutError,
  AbortedError,
  InvalidResponseError,
  isPlatformError,
  isRateLimitError,
  isAuthenticationError,
  type RootInfo,
  type ProjectRecord,
  type WorkspaceRecord,
  type VersionModel,
  type VersionRecord,
  type WorkspaceAnswer,
  type ProjectAnswer,
  type VersionAnswer,
  type ExportAnswer,
  type SearchField,
  type DefaultSearchField,
  type SearchExtension,
  type SearchFieldName,
  type SearchQuery,
  type SearchValues,
  type SearchResult,
  type SearchPage,
  type ImageAnswer,
  type SyntheticImageRequest,
  type SyntheticImage,
  type SyntheticImageAnswer,
  type OrtAnswer,
} from './platform/index.js';

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
} from './errors/index.js';

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
} from './payload/index.js';
export type {
  DownloadProgress,
  DynamicInput,
  ModelForm,
  ModelSpec,
  OutputForm,
  PackageFiles,
  PackageGeneration,
  TensorLayout,
} from './model/index.js';
export type { ContrastType, PreprocessSpec, ResizeMode } from './pipeline/index.js';
export { classColors } from './model/colors.js';
export { IMAGE_FORMATS, type ImageFormat } from './decode/image-header.js';
export type { SegmentManyOutcome } from './batch/segment-many.js';

// The bundled models: `import people from 'edgeseg/models/people'` gives a BundledModel that any `model` option takes.
export type { BundledModel, BundledModelName } from './model/bundled-model.js';

// Live video: createVideoEffect, and the compositor that draws its effects on stills (the demo's photos).
export {
  createVideoEffect,
  VideoEffect,
  type VideoEffectOptions,
  type VideoEffectSettings,
  type VideoBackground,
  type VideoStats,
  type VideoStages,
  type VideoMask,
  type VideoPath,
  type VideoEffectName,
  type DeprecatedVideoEffectName,
  type VideoEffectErrorHandler,
} from './video/video-effect.js';
export { createCompositor } from './video/create-compositor.js';
export type {
  AlphaMask,
  ClassMask,
  Compositor,
  CompositorCanvas,
  CompositorChoice,
  CoverageMask,
  FrameSource,
  EffectMask,
  SceneEffect,
} from './video/compositor.js';
export { parseHexColor, type Effect, type EffectKind, type Rgb } from './video/effect.js';

// Model packages: both export generations parsed into one ModelSpec, shape checks, downloads, caching.
export type { DynamicInput, DynamicSizeMode, ModelSpec, PackageFiles, PackageGeneration } from './types.js';
export type { InputSize } from './input-size.js';
export type { ModelForm, OutputForm, TensorLayout } from './model-form.js';
export { parseModelPackage, PACKAGE_FILES, type ParsedPackage } from './model-package.js';
export { checkModelShapes, type Dim, type ModelIo } from './model-shapes.js';
export { cutTrailingResize, type TrailingResizeCut } from './onnx-trailing-resize.js';
export { parseClassNames, backgroundClassId, MAX_CLASSES } from './class-names.js';
export { parseLegacyEnvironment, IMAGENET } from './legacy-environment.js';
export { parseInferenceConfig } from './inference-config.js';
export { classColors } from './colors.js';
export { fetchPackageFiles, fetchFile, redactQuery, type DownloadProgress, type FetchPackageOptions } from './fetch-package.js';
export { readOnnxModel, onnxModel, type OnnxModel } from './onnx-model.js';
export { cacheStoragePackageCache, type PackageCache } from './package-cache.js';

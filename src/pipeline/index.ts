// The pure segmentation pipeline: pixels → network input, logits → class ids. No DOM, no runtime, no I/O.
export type { ContrastType, Logits, PixelImage, PostprocessOptions, PreprocessMeta, PreprocessSpec, ResizeMode } from './types.js';
export { inputPlan, preprocess, type InputPlan } from './preprocess.js';
export { classIdsFromLogits, classIdMapping, logitPadding } from './class-ids-from-logits.js';
export {
  segmentPixels,
  type DeviceLogits,
  type PixelSegmentation,
  type PrepareInput,
  type PreparedInput,
  type RunModel,
  type SegmentationModel,
  type StageTimings,
  type Timings,
} from './segment-pixels.js';
export { validateConfidence, confidenceThreshold, DEFAULT_CONFIDENCE } from './confidence.js';
export { staticCropRect } from './static-crop.js';
export { toGrayscale } from './grayscale.js';
export { stretchContrast, percentile } from './contrast-stretching.js';
export { equalizeHistogram } from './histogram-equalization.js';
export { equalizeAdaptive } from './adaptive-equalization.js';
export { resizeLinear, resizeLinearRows, linearAxis } from './resize-linear.js';
export { resizeGeometry, type ResizeGeometry } from './resize-geometry.js';
export { antialiasWeights, type AxisWeights } from './antialias-weights.js';
export { VirtualUpsampledLogits } from './onnx-linear-resize.js';
export { planeOf, densePlane, type ImagePlane, type Rect } from './image-plane.js';
export { roundHalfEven } from './round-half-even.js';
export { isYCbCr, ycbcrRows, ycbcrToRgb, type SamplePlane, type YCbCrImage } from './ycbcr.js';

// The browser runtime: createSegmenter and what it returns.
export {
  createSegmenter,
  Segmenter,
  INJECT_FAULT,
  type SegmenterOptions,
  type SegmentCallOptions,
  type Fallback,
  type VersionRef,
  type RuntimeBackendName,
} from './segmenter.js';
export type { ImageSource } from './image-source.js';
export type { Timings, Backend } from './backend.js';

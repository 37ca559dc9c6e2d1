// The browser runtime: createSegmenter and what it returns.
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
} from './segmenter.js';
export type { ImageSource } from './image-source.js';
export type { Timings } from './backend.js';
export type { ThreadChoice, ThreadUse } from './threads.js';

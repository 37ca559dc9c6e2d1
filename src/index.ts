// edgeseg, the browser entry: the platform clients, the payload, errors. (The segmenter joins it with the runtime.)
export * from './platform/index.js';
export * from './errors/index.js';
export { buildPayload, rawFromPayload, normalizeHostedPayload, decodeMaskPng, encodeMaskPng, classMapOf, type RawSegmentation, type SegmentationPayload } from './payload/index.js';

// The hosted route's payload: types, the 8-bit grayscale mask PNG, base64, hosted-answer normalisation.
export type { RawSegmentation, SegmentationPayload } from './types.js';
export { encodeMaskPng, decodeMaskPng } from './png-gray.js';
export { bytesToBase64, base64ToBytes } from './base64.js';
export { buildPayload, rawFromPayload, classMapOf } from './payload.js';
export { normalizeHostedPayload } from './normalize-hosted.js';

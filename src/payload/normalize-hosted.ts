// The hosted route answers flat or nested under `predictions` (the open-source server adds
// `confidence_mask` and `present_class_ids`); callers always get the flat payload, checked.
import { InvalidInputError } from '../errors/index.js';
import { base64ToBytes } from './base64.js';
import { readMaskHeader } from './png-header.js';
import { decodeMaskPng } from './png-gray.js';
import type { SegmentationPayload } from './types.js';

/**
 * The flat payload from a hosted answer, after checking that the mask is an 8-bit grayscale PNG whose
 * size equals `image`. Extra fields are dropped. Throws `InvalidInputError('PAYLOAD_INVALID')`.
 */
export function normalizeHostedPayload(body: unknown): SegmentationPayload {
  const root = asObject(body, 'the answer');
  const inner = 'predictions' in root && !('segmentation_mask' in root) ? asObject(root.predictions, 'predictions') : root;
  const mask = inner.segmentation_mask;
  if (typeof mask !== 'string' || mask.length === 0) invalid('segmentation_mask is not a base64 string');
  const classMap = asObject(inner.class_map, 'class_map');
  const class_map: Record<string, string> = {};
  for (const [id, name] of Object.entries(classMap)) {
    if (!/^\d+$/.test(id) || typeof name !== 'string') invalid(`class_map entry ${JSON.stringify(id)} is not id → name`);
    class_map[id] = name;
  }
  const imageField = inner.image ?? root.image;
  const image = asObject(imageField, 'image');
  const width = image.width;
  const height = image.height;
  if (!isSize(width) || !isSize(height)) invalid('image.width and image.height must be positive integers');
  let png: Uint8Array;
  try {
    png = base64ToBytes(mask);
  } catch {
    invalid('segmentation_mask is not base64');
  }
  // The sizes agree before anything is inflated.
  const header = readMaskHeader(png);
  if (header.width !== width || header.height !== height) {
    invalid(`the mask is ${header.width}×${header.height} but image says ${width}×${height}`);
  }
  decodeMaskPng(png);
  return { segmentation_mask: mask.startsWith('data:') ? mask.slice(mask.indexOf(',') + 1) : mask, class_map, image: { width, height } };
}

function asObject(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) invalid(`${what} is not an object`);
  return value as Record<string, unknown>;
}

function isSize(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0;
}

function invalid(reason: string): never {
  throw new InvalidInputError('PAYLOAD_INVALID', `not a segmentation payload: ${reason}`);
}

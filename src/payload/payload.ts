// Building the hosted route's payload from class ids, and reading one back.
import { bytesToBase64, base64ToBytes } from './base64.js';
import { decodeMaskPng, encodeMaskPng } from './png-gray.js';
import type { RawSegmentation, SegmentationPayload } from './types.js';

/** `{ "0": name0, "1": name1, … }` for every class, background included, in class_names.txt order. */
export function classMapOf(classNames: readonly string[]): Record<string, string> {
  const map: Record<string, string> = {};
  classNames.forEach((name, id) => (map[String(id)] = name));
  return map;
}

/**
 * The hosted route's payload from class ids: the mask PNG in base64, the class map, the size.
 *
 * @param maskPng - The mask PNG, where it is made already; encoded from `raw` when not given.
 */
export function buildPayload(raw: RawSegmentation, maskPng = encodeMaskPng(raw.classIds, raw.width, raw.height)): SegmentationPayload {
  return {
    segmentation_mask: bytesToBase64(maskPng),
    class_map: raw.class_map,
    image: { width: raw.width, height: raw.height },
  };
}

/** The class ids of a payload (its mask PNG decoded). */
export function rawFromPayload(payload: SegmentationPayload): RawSegmentation {
  const { classIds, width, height } = decodeMaskPng(base64ToBytes(payload.segmentation_mask));
  return { classIds, width, height, class_map: payload.class_map };
}

import { describe, expect, test } from 'vitest';
import { buildPayload, normalizeHostedPayload, rawFromPayload, bytesToBase64, encodeMaskPng } from '../../../src/payload/index.js';
import { regionMask } from '../../helpers/masks.js';

const class_map = { '0': 'background', '1': 'circle', '2': 'rectangle' };
const raw = { classIds: regionMask(40, 30, 3), width: 40, height: 30, class_map };
const flat = buildPayload(raw);

describe('normalizeHostedPayload', () => {
  test('returns a flat answer as it is', () => {
    expect(normalizeHostedPayload(flat)).toEqual(flat);
  });

  test("unwraps the open-source server's nested form and drops its extra fields", () => {
    const nested = {
      predictions: { ...flat, confidence_mask: flat.segmentation_mask, present_class_ids: [0, 1, 2] },
      image: flat.image,
      time: 0.1,
    };
    expect(normalizeHostedPayload(nested)).toEqual(flat);
  });

  test('the payload round-trips to the same class ids', () => {
    expect(rawFromPayload(normalizeHostedPayload({ predictions: flat }))).toEqual(raw);
  });

  const invalid: [string, unknown][] = [
    ['not an object', 'hello'],
    ['no mask', { class_map, image: flat.image }],
    ['a mask of another size', { ...flat, image: { width: 41, height: 30 } }],
    ['a mask that is not a PNG', { ...flat, segmentation_mask: bytesToBase64(new Uint8Array([1, 2, 3])) }],
    ['a bad class_map', { ...flat, class_map: { zero: 'background' } }],
    ['a non-integer size', { ...flat, image: { width: 40.5, height: 30 } }],
  ];
  for (const [name, body] of invalid) {
    test(`refuses ${name} with PAYLOAD_INVALID`, () => {
      expect(() => normalizeHostedPayload(body)).toThrow(expect.objectContaining({ code: 'PAYLOAD_INVALID' }));
    });
  }

  test('accepts a mask given as a data: URL and returns it without the prefix', () => {
    const mask = bytesToBase64(encodeMaskPng(raw.classIds, 40, 30));
    expect(normalizeHostedPayload({ ...flat, segmentation_mask: `data:image/png;base64,${mask}` }).segmentation_mask).toBe(mask);
  });
});

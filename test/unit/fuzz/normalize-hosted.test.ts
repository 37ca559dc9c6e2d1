// Fuzzing the hosted-answer normaliser: any JSON, a good answer with fields replaced, and masks whose PNG is
// damaged or lies about its size. It returns a checked flat payload or throws PAYLOAD_INVALID; nothing else.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { InvalidInputError } from '../../../src/errors/index.js';
import { base64ToBytes, buildPayload, bytesToBase64, normalizeHostedPayload, rawFromPayload } from '../../../src/payload/index.js';
import { pngSized } from '../../fixtures/bad-images.js';
import { fuzzParams } from '../../helpers/fuzz.js';
import { regionMask } from '../../helpers/masks.js';

const class_map = { '0': 'background', '1': 'circle', '2': 'rectangle' };
const good = buildPayload({ classIds: regionMask(40, 30, 3), width: 40, height: 30, class_map });
const maskBytes = base64ToBytes(good.segmentation_mask);

/** The mask's PNG damaged: cut, bytes overwritten, or its IHDR size rewritten (CRC kept right) to any size. */
const damagedMask = fc.oneof(
  fc.nat({ max: maskBytes.length }).map((n) => maskBytes.slice(0, n)),
  fc
    .array(fc.tuple(fc.nat({ max: maskBytes.length - 1 }), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 })
    .map((edits) => {
      const out = maskBytes.slice();
      for (const [at, v] of edits) out[at] = v;
      return out;
    }),
  fc
    .tuple(fc.constantFrom(0, 1, 39, 40, 41, 65535, 0x7fffffff, 0xffffffff), fc.constantFrom(0, 1, 30, 65535, 0x7fffffff, 0xffffffff))
    .map(([w, h]) => pngSized(maskBytes, w, h)),
);

const field = fc.constantFrom('segmentation_mask', 'class_map', 'image', 'predictions');
const answer = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  // A good answer, flat or nested, with some fields replaced by anything.
  fc.tuple(fc.boolean(), fc.array(fc.tuple(field, fc.jsonValue({ maxDepth: 2 })), { maxLength: 3 })).map(([nested, edits]) => {
    const base: Record<string, unknown> = nested ? { predictions: { ...good }, image: good.image } : { ...good };
    const target = (nested ? base.predictions : base) as Record<string, unknown>;
    for (const [k, v] of edits) target[k] = v;
    return base;
  }),
  // A damaged mask, with `image` saying the size the damaged header says or the true one.
  fc.tuple(damagedMask, fc.boolean()).map(([png, claimHeader]) => {
    const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
    const image = claimHeader && png.length >= 24 ? { width: view.getUint32(16), height: view.getUint32(20) } : good.image;
    return { ...good, segmentation_mask: bytesToBase64(png), image };
  }),
);

describe('normalizeHostedPayload', () => {
  test('any answer: a payload whose mask decodes to its size, or PAYLOAD_INVALID', () => {
    fc.assert(
      fc.property(answer, (body) => {
        let payload;
        try {
          payload = normalizeHostedPayload(body);
        } catch (error) {
          expect(error).toBeInstanceOf(InvalidInputError);
          expect((error as InvalidInputError).code).toBe('PAYLOAD_INVALID');
          return;
        }
        const raw = rawFromPayload(payload);
        expect([raw.width, raw.height]).toEqual([payload.image.width, payload.image.height]);
        expect(raw.classIds.length).toBe(raw.width * raw.height);
      }),
      fuzzParams(1500),
    );
  });
});

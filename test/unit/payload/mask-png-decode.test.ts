// The mask reader undoes every PNG row filter as libpng writes them, and refuses a mask whose image data is
// not exactly its header's size (a lying header, or more data than it says) before inflating past it.
import sharp from 'sharp';
import { describe, expect, test } from 'vitest';
import { decodeMaskPng, encodeMaskPng } from '../../../src/payload/index.js';
import { MAX_MASK_PIXELS } from '../../../src/payload/png-gray.js';
import { pngSized } from '../../fixtures/bad-images.js';
import { thrown } from '../../helpers/rejection.js';

const idsOf = (w: number, h: number) => new Uint8Array(w * h).map((_, i) => ((i * 7919) % 13) + (((i / w) | 0) % 3));

describe('masks written by libpng (sharp), every filter', () => {
  test.each([
    [97, 61],
    [1, 1],
    [300, 7],
    [5, 200],
  ])('%i×%i', async (w, h) => {
    const ids = idsOf(w, h);
    for (const adaptiveFiltering of [true, false]) {
      for (const progressive of [false, true]) {
        const png = await sharp(Buffer.from(ids), { raw: { width: w, height: h, channels: 1 } })
          .toColourspace('b-w')
          .png({ adaptiveFiltering, progressive, compressionLevel: 9, palette: false })
          .toBuffer();
        const decoded = decodeMaskPng(new Uint8Array(png));
        expect([decoded.width, decoded.height]).toEqual([w, h]);
        expect(decoded.classIds).toEqual(ids);
      }
    }
  });
});

describe('sizes that lie', () => {
  const png = encodeMaskPng(idsOf(40, 30), 40, 30);
  test.each([
    [41, 30, 'truncated'],
    [40, 31, 'truncated'],
    [1, 1, 'more data than 1×1'],
    [39, 30, 'more data'],
    [0, 30, 'says it is 0×30'],
  ])('header %i×%i: %s', (w, h, says) => {
    const error = thrown(() => decodeMaskPng(pngSized(png, w, h)));
    expect(error.code).toBe('PAYLOAD_INVALID');
    expect(error.message).toContain(says);
  });

  test('a header over the mask limit is refused without inflating (no time, no memory)', () => {
    const side = Math.ceil(Math.sqrt(MAX_MASK_PIXELS)) + 1;
    expect(() => decodeMaskPng(pngSized(png, side, side))).toThrowError(expect.objectContaining({ code: 'PAYLOAD_INVALID' }));
    expect(() => decodeMaskPng(pngSized(png, 0x7fffffff, 1))).toThrowError(expect.objectContaining({ code: 'PAYLOAD_INVALID' }));
  });
});

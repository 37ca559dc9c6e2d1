// Fuzzing the header reader and Node's decoder with damaged images: each either gives a well-formed image
// or a coded InvalidInputError; never another error, never a crash.
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { InvalidInputError } from '../../../src/errors/index.js';
import { decodeImage } from '../../../src/decode/decode-node.js';
import { IMAGE_FORMATS, readImageHeader } from '../../../src/decode/image-header.js';
import { corruptImage, fuzzParams } from '../../helpers/fuzz.js';
import { animatedWebpFrames, apngFrames, gifFrames, tiffPages, type Frame } from '../../helpers/hostile-images.js';
import { samples } from '../../helpers/image-samples.js';

const s = samples();
const HEADER_CODES = ['IMAGE_EMPTY', 'IMAGE_DECODE_FAILED', 'IMAGE_FORMAT_UNSUPPORTED'];
const DECODE_CODES = [...HEADER_CODES, 'IMAGE_TOO_LARGE'];

/** The error's code where it is a coded InvalidInputError; the error itself otherwise, to fail on. */
const codeOf = (error: unknown): string => (error instanceof InvalidInputError ? error.code : `uncoded: ${String(error)}`);

describe('readImageHeader', () => {
  test('any bytes: a header of an allowed format with a positive size, or a coded error', () => {
    fc.assert(
      fc.property(corruptImage(s), (bytes) => {
        let header;
        try {
          header = readImageHeader(bytes);
        } catch (error) {
          expect(HEADER_CODES).toContain(codeOf(error));
          return;
        }
        expect(IMAGE_FORMATS).toContain(header.format);
        for (const size of [header.width, header.height]) if (size !== undefined) expect(Number.isInteger(size) && size > 0).toBe(true);
      }),
      fuzzParams(3000),
    );
  });

  test('any screen and frames: the size covers the screen and every frame (GIF, APNG, animated WebP), or the largest page (TIFF)', () => {
    const side = fc.integer({ min: 1, max: 9000 });
    // WebP keeps offsets halved: even ones only.
    const frame = fc.record({ left: fc.nat(4000).map((v) => v * 2), top: fc.nat(4000).map((v) => v * 2), width: side, height: side });
    fc.assert(
      fc.property(side, side, fc.array(frame, { minLength: 1, maxLength: 6 }), (width, height, frames: Frame[]) => {
        const extent = (axis: 'width' | 'height', offset: 'left' | 'top') =>
          Math.max(axis === 'width' ? width : height, ...frames.map((f) => f[offset]! + f[axis]));
        const covering = { width: extent('width', 'left'), height: extent('height', 'top') };
        expect(readImageHeader(gifFrames(width, height, frames))).toMatchObject(covering);
        expect(readImageHeader(apngFrames(width, height, frames))).toMatchObject(covering);
        expect(readImageHeader(animatedWebpFrames(width, height, frames))).toMatchObject(covering);
        const pages = [{ width, height }, ...frames];
        const largest = Math.max(...pages.map((p) => p.width * p.height));
        const tiff = readImageHeader(tiffPages(pages));
        expect(tiff.width! * tiff.height!).toBe(largest);
      }),
      fuzzParams(300),
    );
  });
});

describe('decodeImage (Node, libvips)', () => {
  test('any bytes: RGB pixels of the stated size, or a coded error', async () => {
    await fc.assert(
      fc.asyncProperty(corruptImage(s), async (bytes) => {
        const result = await decodeImage(bytes, { maxPixels: 1_000_000 }).then(
          (image) => image,
          (error: unknown) => codeOf(error),
        );
        if (typeof result === 'string') {
          expect(DECODE_CODES).toContain(result);
          return;
        }
        expect(result.width > 0 && result.height > 0).toBe(true);
        expect(result.data.length).toBe(result.width * result.height * 3);
        // The header's size is what the decode gate weighs: never less than what was decoded.
        const header = readImageHeader(bytes);
        if (header.width !== undefined) expect(header.width * header.height!).toBeGreaterThanOrEqual(result.width * result.height);
      }),
      fuzzParams(400),
    );
  });
});

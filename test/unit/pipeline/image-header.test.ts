// The one allow-list: each allowed format's header gives its size; refused formats and lying headers are
// coded errors before any decoder runs; base64 text is told from a path by the same signatures.
import { describe, expect, test } from 'vitest';
import { InvalidInputError } from '../../../src/errors/index.js';
import { decodeImage } from '../../../src/decode/decode-node.js';
import { IMAGE_FORMATS, readImageHeader, sniffImageFormat } from '../../../src/decode/image-header.js';
import { isBase64Image } from '../../../src/runtime/image-string.js';
import { badImages, pngSized } from '../../fixtures/bad-images.js';
import { animatedWebpFrames, apngFrames, avifWithIspe, gifFrames, tiffPages } from '../../helpers/hostile-images.js';
import { samples } from '../../helpers/image-samples.js';

const s = samples();

describe('the allowed formats', () => {
  const cases = [
    ['png', s.png],
    ['jpeg', s.jpeg],
    ['webp', s.webp],
    ['webp', s.webpLossy],
    ['gif', s.gif],
    ['avif', s.avif],
    ['tiff', s.tiff],
  ] as const;
  test.each(cases)('%s: format and size (24×16) from the header', (format, bytes) => {
    expect(readImageHeader(bytes)).toMatchObject({ format, width: 24, height: 16 });
  });

  test('the list is the one the README promises', () => {
    expect([...IMAGE_FORMATS]).toEqual(['jpeg', 'png', 'webp', 'gif', 'avif', 'tiff']);
  });

  test('a big-endian TIFF reads the same', () => {
    // The same directory written big-endian by hand: II → MM, every field swapped.
    const be = new Uint8Array([
      0x4d, 0x4d, 0, 0x2a, 0, 0, 0, 8, 0, 2, 1, 0, 0, 3, 0, 0, 0, 1, 0, 24, 0, 0, 1, 1, 0, 4, 0, 0, 0, 1, 0, 0, 0, 16, 0, 0, 0, 0,
    ]);
    expect(readImageHeader(be)).toEqual({ format: 'tiff', width: 24, height: 16 });
  });
});

describe('frames and pages larger than the header says: the size is the largest a decoder may allocate', () => {
  test("a GIF: the screen and every frame's extent (left + width, top + height), extensions and colour tables stepped over", () => {
    expect(readImageHeader(gifFrames(1, 1, [{ width: 7000, height: 7000 }]))).toEqual({ format: 'gif', width: 7000, height: 7000 });
    // libvips grows the screen to the first frame's extent; a later frame, or one placed far off, counts too.
    const later = gifFrames(10, 10, [
      { width: 10, height: 10 },
      { width: 20, height: 20 },
      { left: 6000, top: 100, width: 50, height: 30 },
    ]);
    expect(readImageHeader(later)).toMatchObject({ width: 6050, height: 130 });
    // A descriptor written inside a comment extension is text, not a frame.
    expect(readImageHeader(gifFrames(24, 16, [{ width: 24, height: 16 }], { comment: true }))).toMatchObject({ width: 24, height: 16 });
    // An honest GIF's frames lie within its screen: its size is the screen's.
    expect(
      readImageHeader(
        gifFrames(300, 200, [
          { width: 300, height: 200 },
          { left: 10, top: 10, width: 20, height: 20 },
        ]),
      ),
    ).toMatchObject({
      width: 300,
      height: 200,
    });
  });

  test("an APNG's frame controls and an animated WebP's frames (their offsets and their bitstreams)", () => {
    expect(
      readImageHeader(
        apngFrames(1, 1, [
          { width: 1, height: 1 },
          { left: 1000, width: 6000, height: 7000 },
        ]),
      ),
    ).toEqual({
      format: 'png',
      width: 7000,
      height: 7000,
    });
    expect(
      readImageHeader(
        animatedWebpFrames(1, 1, [
          { width: 1, height: 1 },
          { left: 2, top: 4, width: 7000, height: 6000 },
        ]),
      ),
    ).toEqual({
      format: 'webp',
      width: 7002,
      height: 6004,
    });
    // A frame whose bitstream says more than its frame header.
    expect(readImageHeader(animatedWebpFrames(16, 16, [{ width: 16, height: 16, bitstream: [9000, 5000] }]))).toMatchObject({
      width: 9000,
      height: 5000,
    });
  });

  test('a multi-page TIFF: its largest page, however many pages and whatever their order; a loop of directories ends', () => {
    expect(
      readImageHeader(
        tiffPages([
          [1, 1],
          [20, 20],
          [7000, 7000],
          [30, 30],
        ]),
      ),
    ).toEqual({ format: 'tiff', width: 7000, height: 7000 });
    // Pages are decoded one at a time: a wide page and a tall one are not one large one.
    expect(
      readImageHeader(
        tiffPages([
          [7000, 1],
          [1, 7000],
        ]),
      ),
    ).toMatchObject({ width: 7000, height: 1 });
    expect(
      readImageHeader(
        tiffPages(
          [
            [24, 16],
            [5000, 5000],
          ],
          { loop: true },
        ),
      ),
    ).toMatchObject({ width: 5000, height: 5000 });
  });

  test("an AVIF: the largest of its items' ispe properties", () => {
    expect(readImageHeader(avifWithIspe(s.avif, 7000, 7000))).toMatchObject({ format: 'avif', width: 7000, height: 7000 });
    expect(readImageHeader(avifWithIspe(s.avif, 2, 2))).toMatchObject({ width: 24, height: 16 });
  });

  test("Node's decoder refuses such an image over the pixel limit from the header, before libvips sees it", async () => {
    const gif = gifFrames(1, 1, [{ width: 8000, height: 8000 }]);
    await expect(decodeImage(gif)).rejects.toMatchObject({
      code: 'IMAGE_TOO_LARGE',
      message: expect.stringContaining('8000×8000') as string,
    });
    await expect(
      decodeImage(
        tiffPages([
          [24, 16],
          [9000, 9000],
        ]),
      ),
    ).rejects.toMatchObject({ code: 'IMAGE_TOO_LARGE' });
  });
});

describe('bad images are refused from the header, or left for the decoder to fail on', () => {
  for (const { name, bytes, code } of badImages(s)) {
    test(`${name}: ${code}`, () => {
      let thrown: unknown;
      try {
        readImageHeader(bytes);
      } catch (e) {
        thrown = e;
      }
      if (thrown === undefined) {
        // Only a corrupt body behind a sound header gets past; the decoders then say IMAGE_DECODE_FAILED.
        expect(code).toBe('IMAGE_DECODE_FAILED');
        return;
      }
      expect(thrown).toBeInstanceOf(InvalidInputError);
      expect((thrown as InvalidInputError).code).toBe(code);
    });
  }

  test('every lying size is caught by the header alone', () => {
    const lying = badImages(s).filter((b) => /says|negative|0 pixels|0 rows|0 columns|0×0/.test(b.name));
    // The names select the cases: a rewording there must not leave this loop with nothing to check.
    expect(lying.length).toBe(9);
    for (const { name, bytes } of lying) {
      expect(() => readImageHeader(bytes), name).toThrowError(expect.objectContaining({ code: 'IMAGE_DECODE_FAILED' }));
    }
    expect(() => readImageHeader(pngSized(s.png, 24, 16))).not.toThrow();
  });

  test('the message names the refused format and the allowed ones', () => {
    const svg = badImages(s).find((b) => b.name === 'an SVG')!.bytes;
    expect(() => readImageHeader(svg)).toThrow('SVG images are not decoded; send JPEG, PNG, WebP, GIF, AVIF or TIFF');
    expect(() => readImageHeader(pngSized(s.png, 0, 0))).toThrow('the PNG header says the image is 0×0');
    const page = badImages(s).find((b) => b.name.startsWith('an HTML page'))!.bytes;
    expect(() => readImageHeader(page)).toThrow('the bytes are an HTML page, not an image (JPEG, PNG, WebP, GIF, AVIF or TIFF)');
  });
});

describe('signatures', () => {
  test('an ISO media file is AVIF only where a brand says so', () => {
    const ftyp = (major: string, ...compatible: string[]) =>
      new TextEncoder().encode(`\0\0\0${String.fromCharCode(16 + 4 * compatible.length)}ftyp${major}\0\0\0\0${compatible.join('')}`);
    expect(sniffImageFormat(ftyp('mif1', 'miaf', 'avif'))).toBe('avif');
    expect(sniffImageFormat(ftyp('avis'))).toBe('avif');
    expect(sniffImageFormat(ftyp('heic', 'mif1'))).toBe('heic');
    expect(sniffImageFormat(ftyp('mif1'))).toBe('heif');
    expect(sniffImageFormat(ftyp('isom', 'mp41'))).toBe('heif');
  });

  test('base64 of any recognised format is image text; a path stays a path', () => {
    const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
    for (const bytes of [s.png, s.jpeg, s.webp, s.gif, s.avif, s.tiff]) expect(isBase64Image(b64(bytes).slice(0, 100))).toBe(true);
    // Refused formats are still image text, so they get IMAGE_FORMAT_UNSUPPORTED rather than a 404.
    expect(isBase64Image(b64(badImages(s).find((b) => b.name === 'a BMP')!.bytes))).toBe(true);
    expect(isBase64Image('api/images/abc123xyz')).toBe(false);
    expect(isBase64Image('/workspace/images/abc123')).toBe(false);
  });
});

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
  /** The format and the size the header reader gives, as `format W×H`. */
  const sizeOf = (bytes: Uint8Array) => {
    const { format, width, height } = readImageHeader(bytes);
    return `${format} ${width}×${height}`;
  };
  const frame = (width: number, height: number, left = 0, top = 0) => ({ width, height, left, top });

  test("a GIF: the screen and every frame's extent (left + width, top + height), extensions and colour tables stepped over", () => {
    expect(sizeOf(gifFrames(1, 1, [frame(7000, 7000)]))).toBe('gif 7000×7000');
    // libvips grows the screen to the first frame's extent; a later frame, or one placed far off, counts too.
    expect(sizeOf(gifFrames(10, 10, [frame(10, 10), frame(20, 20), frame(50, 30, 6000, 100)]))).toBe('gif 6050×130');
    // A descriptor written inside a comment extension is text, not a frame.
    expect(sizeOf(gifFrames(24, 16, [frame(24, 16)], { comment: true }))).toBe('gif 24×16');
    // An honest GIF's frames lie within its screen: its size is the screen's.
    expect(sizeOf(gifFrames(300, 200, [frame(300, 200), frame(20, 20, 10, 10)]))).toBe('gif 300×200');
  });

  test("an APNG's frame controls and an animated WebP's frames (their offsets and their bitstreams)", () => {
    expect(sizeOf(apngFrames(1, 1, [frame(1, 1), frame(6000, 7000, 1000)]))).toBe('png 7000×7000');
    expect(sizeOf(animatedWebpFrames(1, 1, [frame(1, 1), frame(7000, 6000, 2, 4)]))).toBe('webp 7002×6004');
    // A frame whose bitstream says more than its frame header.
    expect(sizeOf(animatedWebpFrames(16, 16, [{ ...frame(16, 16), bitstream: [9000, 5000] }]))).toBe('webp 9000×5000');
  });

  test('a multi-page TIFF: its largest page, however many pages and whatever their order; a loop of directories ends', () => {
    expect(sizeOf(tiffPages([frame(1, 1), frame(20, 20), frame(7000, 7000), frame(30, 30)]))).toBe('tiff 7000×7000');
    // Pages are decoded one at a time: a wide page and a tall one are not one large one.
    expect(sizeOf(tiffPages([frame(7000, 1), frame(1, 7000)]))).toBe('tiff 7000×1');
    expect(sizeOf(tiffPages([frame(24, 16), frame(5000, 5000)], { loop: true }))).toBe('tiff 5000×5000');
  });

  test("an AVIF: the largest of its items' ispe properties", () => {
    expect(sizeOf(avifWithIspe(s.avif, 7000, 7000))).toBe('avif 7000×7000');
    expect(sizeOf(avifWithIspe(s.avif, 2, 2))).toBe('avif 24×16');
  });

  test("Node's decoder refuses such an image over the pixel limit from the header, before libvips sees it", async () => {
    const tooLarge = { code: 'IMAGE_TOO_LARGE', message: expect.stringContaining('8000×8000') as string };
    await expect(decodeImage(gifFrames(1, 1, [frame(8000, 8000)]))).rejects.toMatchObject(tooLarge);
    // libvips decodes the first page alone; the header counts the largest.
    await expect(decodeImage(tiffPages([frame(24, 16), frame(8000, 8000)]))).rejects.toMatchObject(tooLarge);
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

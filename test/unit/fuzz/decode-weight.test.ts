// The size the header reader gives (what the platform's decode gate weighs, and what the pixel limit is
// checked on before any decoder runs) against libvips's own reading of the same bytes: never less than
// what libvips will decode, for every way a format lets a file give its size (TIFF's field types and
// pages, a WebP's canvas and bitstream, a GIF's screen and frames, an AVIF's grid and overlay).
import fc from 'fast-check';
import sharp from 'sharp';
import { describe, expect, test } from 'vitest';
import { InvalidInputError } from '../../../src/errors/index.js';
import { readImageHeader } from '../../../src/decode/image-header.js';
import { fuzzParams } from '../../helpers/fuzz.js';
import { avifDerived, gifFrames, tiffImage, type TiffSizeEntry } from '../../helpers/hostile-images.js';
import { samples } from '../../helpers/image-samples.js';

const s = samples();

/** What libvips reads of `bytes` (the header it decodes from, as decodeImage asks), or null where it refuses them. */
async function libvipsSize(bytes: Uint8Array): Promise<{ width: number; height: number } | null> {
  try {
    const { width, height } = await sharp(bytes, { failOn: 'error', animated: false, limitInputPixels: false }).metadata();
    return { width, height };
  } catch {
    return null;
  }
}

/** The header reader's size, or the code it refused the bytes with. */
function headerSize(bytes: Uint8Array): { width: number; height: number } | string {
  try {
    const { width, height } = readImageHeader(bytes);
    return { width: width!, height: height! };
  } catch (error) {
    if (error instanceof InvalidInputError) return error.code;
    throw error;
  }
}

/** The property: where libvips reads a size, the header reader gives one at least as large in pixels. */
async function expectWeighedAtLeast(bytes: Uint8Array, what: unknown): Promise<void> {
  const decoded = await libvipsSize(bytes);
  if (decoded === null) return;
  const header = headerSize(bytes);
  expect([what, typeof header === 'string' ? header : 'a size']).toEqual([what, 'a size']);
  const weight = (header as { width: number; height: number }).width * (header as { width: number; height: number }).height;
  expect([what, weight >= decoded.width * decoded.height]).toEqual([what, true]);
}

describe('TIFF: ImageWidth and ImageLength in every field type', () => {
  const entry = (tag: 256 | 257, type: number, value: bigint, extra: Partial<TiffSizeEntry> = {}): TiffSizeEntry => ({
    tag,
    type,
    value,
    ...extra,
  });
  const sized = (type: number, width: bigint, height = 16n) => tiffImage([entry(256, type, width), entry(257, 3, height)]);

  test("each type libtiff reads a size from gives libvips's size; the others are refused by both", async () => {
    // BYTE, SHORT, LONG, SBYTE, SSHORT, SLONG, IFD, LONG8, SLONG8, IFD8: LONG8 and the other 8-byte types keep
    // their value at an offset, which the four-byte entry holds (the reported attack read it as the size).
    for (const type of [1, 3, 4, 6, 8, 9, 13, 16, 17, 18]) {
      const bytes = sized(type, type === 1 ? 200n : type === 6 ? 100n : 5000n);
      expect([type, headerSize(bytes)]).toEqual([type, await libvipsSize(bytes)]);
    }
    // ASCII, RATIONAL, SBYTE, UNDEFINED, SRATIONAL, FLOAT, DOUBLE, and types no version defines.
    for (const type of [2, 5, 7, 10, 11, 12, 14, 15, 19, 255]) {
      const bytes = sized(type, 5000n);
      expect([type, headerSize(bytes), await libvipsSize(bytes)]).toEqual([type, 'IMAGE_DECODE_FAILED', null]);
    }
  });

  test('any encoding of the two entries (type, count, sign, high word, junk beside a short value, offsets past the end, duplicates, byte order, later pages): never less than libvips reads', async () => {
    const types = fc.constantFrom(1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 16, 17, 18, 20);
    const value = fc.oneof(
      fc.bigInt({ min: 1n, max: 9000n }),
      fc.constantFrom(0n, -1n, -5000n, 2n ** 32n + 300n, 2n ** 31n + 7n, 65535n, 65536n + 40n),
    );
    const sizeEntry = (tag: 256 | 257) =>
      fc.record(
        {
          tag: fc.constant(tag),
          type: types,
          value,
          count: fc.constantFrom(1, 1, 1, 0, 2),
          pad: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 }),
          offset: fc.constantFrom(100_000, 3),
        },
        { requiredKeys: ['tag', 'type', 'value'] },
      ) as fc.Arbitrary<TiffSizeEntry>;
    const page = fc.record({ width: fc.integer({ min: 1, max: 9000 }), height: fc.integer({ min: 1, max: 9000 }) });
    await fc.assert(
      fc.asyncProperty(
        fc.array(sizeEntry(256), { minLength: 1, maxLength: 2 }),
        fc.array(sizeEntry(257), { minLength: 1, maxLength: 2 }),
        fc.boolean(),
        fc.array(page, { maxLength: 2 }),
        async (widths, heights, bigEndian, pages) => {
          const bytes = tiffImage([...widths, ...heights], { bigEndian, pages });
          await expectWeighedAtLeast(bytes, { widths, heights, bigEndian, pages });
        },
      ),
      fuzzParams(400),
    );
  });

  test('BigTIFF, which libvips would decode, is refused before any decoder reads it', () => {
    const big = new Uint8Array([0x49, 0x49, 0x2b, 0x00, 8, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0]);
    expect(headerSize(big)).toBe('IMAGE_FORMAT_UNSUPPORTED');
  });
});

describe('the other formats: where each lets a file give its size', () => {
  test("every sample: the header's size is libvips's", async () => {
    for (const [name, bytes] of Object.entries(s)) expect([name, headerSize(bytes)]).toEqual([name, await libvipsSize(bytes)]);
  });

  test('a WebP whose VP8X canvas and bitstream disagree, a GIF whose screen and frames do: never less than libvips decodes', async () => {
    const side = fc.integer({ min: 1, max: 300 });
    const vp8l = async (width: number, height: number) => {
      const webp = await sharp({ create: { width, height, channels: 3, background: '#336699' } })
        .webp({ lossless: true })
        .toBuffer();
      return webp.subarray(12);
    };
    await fc.assert(
      // Half the time the canvas or screen is the bitstream's or frame's size: libvips then decodes it.
      fc.asyncProperty(fc.option(side), fc.option(side), side, side, async (canvasW, canvasH, width, height) => {
        const canvasWidth = canvasW ?? width;
        const canvasHeight = canvasH ?? height;
        const le24 = (v: number) => [v & 255, (v >>> 8) & 255, (v >>> 16) & 255];
        const vp8x = [...Buffer.from('VP8X'), 10, 0, 0, 0, 0, 0, 0, 0, ...le24(canvasWidth - 1), ...le24(canvasHeight - 1)];
        const body = Buffer.concat([Buffer.from('WEBP'), Buffer.from(vp8x), await vp8l(width, height)]);
        const riff = Buffer.concat([Buffer.from('RIFF'), Buffer.from(new Uint32Array([body.length]).buffer), body]);
        await expectWeighedAtLeast(new Uint8Array(riff), { canvasWidth, canvasHeight, width, height });
        const gif = new Uint8Array(
          await sharp({ create: { width, height, channels: 3, background: '#336699' } })
            .gif()
            .toBuffer(),
        );
        gif.set([canvasWidth & 255, canvasWidth >> 8, canvasHeight & 255, canvasHeight >> 8], 6);
        await expectWeighedAtLeast(gif, { screen: [canvasWidth, canvasHeight], frame: [width, height] });
      }),
      fuzzParams(60),
    );
    // Frames placed anywhere on a screen of any size, as gifFrames writes them.
    await expectWeighedAtLeast(gifFrames(1, 1, [{ width: 300, height: 200, left: 20, top: 30 }]), 'a frame off a 1×1 screen');
  });

  test("an AVIF grid or overlay: libheif allocates an overlay's canvas from its data, whatever its ispe says; the header weighs it so", async () => {
    const honest = { rows: 2, columns: 2, output: [48, 32] as [number, number], ispe: [48, 32] as [number, number] };
    for (const kind of ['grid', 'iovl'] as const) {
      const bytes = avifDerived(s.avif, kind, honest);
      expect([kind, await libvipsSize(bytes), headerSize(bytes)]).toEqual([kind, { width: 48, height: 32 }, { width: 48, height: 32 }]);
      await expect(
        sharp(bytes)
          .raw()
          .toBuffer({ resolveWithObject: true })
          .then((r) => [r.info.width, r.info.height]),
      ).resolves.toEqual([48, 32]);
      // The derived item's data says 5000×5000 under an ispe of 48×32, or none: weighed as 5000×5000.
      for (const ispe of [[48, 32] as [number, number], null]) {
        const lying = avifDerived(s.avif, kind, { ...honest, output: [5000, 5000], ispe });
        expect([kind, ispe, headerSize(lying)]).toEqual([kind, ispe, { width: 5000, height: 5000 }]);
      }
    }
  });
});

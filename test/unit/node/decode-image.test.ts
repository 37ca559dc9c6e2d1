// Node's decoder holds to the one allow-list: each allowed format decodes; every bad image is the code the
// header reader and the browser give, and libvips' loaders for other formats (SVG, PDF) are never reached.
import sharp from 'sharp';
import { describe, expect, test } from 'vitest';
import { InvalidInputError } from '../../../src/errors/index.js';
import { decodeImage } from '../../../src/decode/decode-node.js';
import { badImages } from '../../fixtures/bad-images.js';
import { samples } from '../../helpers/image-samples.js';
import { codeOf } from '../../helpers/rejection.js';

const s = samples();

describe('Node decodes each allowed format', () => {
  const cases = [
    ['PNG', s.png],
    ['JPEG', s.jpeg],
    ['WebP', s.webp],
    ['GIF', s.gif],
    ['AVIF', s.avif],
    ['TIFF', s.tiff],
  ] as const;
  test.each(cases)('%s: 24×16, the disc red at its centre', async (_, bytes) => {
    const image = await decodeImage(bytes);
    expect([image.width, image.height, image.channels]).toEqual([24, 16, 3]);
    const centre = (8 * 24 + 12) * 3;
    // Written as (230, 25, 75); lossy formats move it a little.
    expect(Math.abs(image.data[centre]! - 230)).toBeLessThan(16);
    expect(Math.abs(image.data[centre + 1]! - 25)).toBeLessThan(16);
  });
});

describe('Node refuses bad images with their code', () => {
  for (const { name, bytes, code } of badImages(s)) {
    test(`${name}: ${code}`, async () => {
      const error = await decodeImage(bytes).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as InvalidInputError).code).toBe(code);
    });
  }

  test('libvips would have rendered the SVG: the allow-list is what stops it', async () => {
    const svg = badImages(s).find((b) => b.name === 'an SVG')!.bytes;
    expect((await sharp(svg).metadata()).format).toBe('svg');
    expect(await codeOf(decodeImage(svg))).toBe('IMAGE_FORMAT_UNSUPPORTED');
  });
});

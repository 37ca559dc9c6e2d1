// Image decoding for Node: the allowed formats (JPEG, PNG, WebP, GIF, AVIF, TIFF) through libvips (sharp),
// EXIF orientation applied; format, size and pixel limit checked from the header before libvips sees it.
import type { Metadata } from 'sharp';
import { sharp } from '../node/native-modules.js';
import { InvalidInputError } from '../errors/index.js';
import { checkPixelCount, DEFAULT_MAX_PIXELS, formatName, readImageHeader, type ImageFormat } from './image-header.js';
import type { PixelImage } from '../pipeline/types.js';

export { DEFAULT_MAX_PIXELS } from './image-header.js';

/** What `decodeImage` takes beside the bytes. */
export interface DecodeOptions {
  /**
   * Images with more pixels are refused with IMAGE_TOO_LARGE, before they are decoded where the header says their size.
   * @default 50000000
   */
  maxPixels?: number;
  /**
   * An image with an alpha channel comes back as RGBA (its colours the same as without it), for a cutout
   * that keeps the image's own transparency. False: RGB, as the reference decodes.
   * @default false
   */
  keepAlpha?: boolean;
}

/**
 * Decoded RGB pixels, orientation applied. Like the reference's OpenCV decode: embedded colour profiles
 * are not applied, alpha is dropped (kept as a fourth channel with `keepAlpha`), gray images come back as
 * three equal channels. Every image comes to 8-bit sRGB: 16-bit samples are scaled, CMYK is converted.
 */
export async function decodeImage(bytes: Uint8Array, options: DecodeOptions = {}): Promise<PixelImage> {
  const maxPixels = options.maxPixels ?? DEFAULT_MAX_PIXELS;
  // libvips picks its loader from the bytes: only bytes that start with an allowed signature reach it, so
  // its SVG, PDF and other loaders never see untrusted input.
  const header = readImageHeader(bytes);
  if (header.width !== undefined && header.height !== undefined) checkPixelCount(header.width, header.height, maxPixels);
  const input = () => sharp(bytes, { limitInputPixels: false, failOn: 'error', ignoreIcc: true, autoOrient: true, animated: false });
  let meta: Metadata;
  try {
    meta = await input().metadata();
  } catch (cause) {
    throw decodeError(header.format, cause);
  }
  if (meta.format !== SHARP_FORMAT[header.format]) {
    throw new InvalidInputError(
      'IMAGE_FORMAT_UNSUPPORTED',
      `the bytes start as ${formatName(header.format)} but decode as ${String(meta.format)}`,
    );
  }
  const { width, height } = meta;
  if (!(width > 0 && height > 0))
    throw new InvalidInputError('IMAGE_DECODE_FAILED', `the ${formatName(header.format)} image is ${width}×${height}`);
  checkPixelCount(width, height, maxPixels);
  try {
    const alpha = options.keepAlpha === true && meta.hasAlpha;
    const pipeline = alpha ? input() : input().removeAlpha();
    const { data, info } = await pipeline.toColourspace('srgb').raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
    const pixels = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    if (alpha && info.channels === 4) return { data: pixels, width: info.width, height: info.height, channels: 4 };
    if (info.channels === 3) return { data: pixels, width: info.width, height: info.height, channels: 3 };
    return { data: toRgb(pixels, info.channels), width: info.width, height: info.height, channels: 3 };
  } catch (cause) {
    throw decodeError(header.format, cause);
  }
}

/** The name sharp's metadata gives each allowed format (AVIF is read by libheif). */
const SHARP_FORMAT: Record<ImageFormat, string> = { jpeg: 'jpeg', png: 'png', webp: 'webp', gif: 'gif', avif: 'heif', tiff: 'tiff' };

function toRgb(data: Uint8Array, channels: number): Uint8Array {
  const n = data.length / channels;
  const out = new Uint8Array(n * 3);
  for (let i = 0; i < n; i++) {
    const v = data[i * channels]!;
    out[i * 3] = v;
    out[i * 3 + 1] = channels >= 3 ? data[i * channels + 1]! : v;
    out[i * 3 + 2] = channels >= 3 ? data[i * channels + 2]! : v;
  }
  return out;
}

function decodeError(format: ImageFormat, cause: unknown): InvalidInputError {
  // The signature was one libvips reads, so any failure here is a corrupt or truncated file.
  const message = cause instanceof Error ? cause.message.split('\n')[0]! : String(cause);
  return new InvalidInputError(
    'IMAGE_DECODE_FAILED',
    `the ${formatName(format)} image could not be decoded (corrupt or truncated): ${message}`,
    { cause },
  );
}

// Image decoding for Node: JPEG, PNG, WebP, GIF, AVIF, TIFF… through libvips (sharp), EXIF orientation
// applied, the pixel limit checked from the header before any pixel is decoded.
import type { Metadata } from 'sharp';
import { sharp } from './native-modules.js';
import { InvalidInputError } from '../errors/index.js';
import type { PixelImage } from '../pipeline/types.js';

/** Default pixel limit: 50 megapixels. */
export const DEFAULT_MAX_PIXELS = 50_000_000;

export interface DecodeOptions {
  /** Images with more pixels are refused with IMAGE_TOO_LARGE. Default 50 000 000. */
  maxPixels?: number;
}

/**
 * Decoded RGB pixels, orientation applied. Like the reference's OpenCV decode: embedded colour profiles
 * are not applied, alpha is dropped, gray images come back as three equal channels.
 */
export async function decodeImage(bytes: Uint8Array, options: DecodeOptions = {}): Promise<PixelImage> {
  const maxPixels = options.maxPixels ?? DEFAULT_MAX_PIXELS;
  if (bytes.length === 0) throw new InvalidInputError('IMAGE_EMPTY', 'the image is empty (0 bytes)');
  const input = () => sharp(bytes, { limitInputPixels: false, failOn: 'error', ignoreIcc: true, autoOrient: true, animated: false });
  let meta: Metadata;
  try {
    meta = await input().metadata();
  } catch (cause) {
    throw decodeError(cause);
  }
  const { width, height } = meta;
  if (!width || !height) throw new InvalidInputError('IMAGE_EMPTY', 'the image has no pixels');
  if (width * height > maxPixels) {
    throw new InvalidInputError(
      'IMAGE_TOO_LARGE',
      `the image has ${width}×${height} = ${(width * height / 1e6).toFixed(1)} megapixels; the limit is ${(maxPixels / 1e6).toFixed(1)}`,
    );
  }
  try {
    const { data, info } = await input().removeAlpha().toColourspace('srgb').raw({ depth: 'uchar' }).toBuffer({ resolveWithObject: true });
    const pixels = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    if (info.channels === 3) return { data: pixels, width: info.width, height: info.height, channels: 3 };
    return { data: toRgb(pixels, info.channels), width: info.width, height: info.height, channels: 3 };
  } catch (cause) {
    throw decodeError(cause);
  }
}

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

function decodeError(cause: unknown): InvalidInputError {
  const message = cause instanceof Error ? cause.message : String(cause);
  if (/unsupported image format/i.test(message)) {
    return new InvalidInputError('IMAGE_FORMAT_UNSUPPORTED', 'the bytes are not an image format edgeseg can decode', { cause });
  }
  return new InvalidInputError('IMAGE_DECODE_FAILED', `the image could not be decoded (corrupt or truncated): ${message}`, { cause });
}

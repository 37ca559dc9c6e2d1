// Image decoding in the worker: encoded bytes, Blobs, URLs, ImageBitmaps, VideoFrames and raw pixels
// to RGBA, with EXIF orientation applied and the pixel limit checked from the header first.
import { InvalidInputError } from '../errors/index.js';
import type { PixelImage, YCbCrImage } from '../pipeline/index.js';
import { checkPixelCount, formatName, readImageHeader, type ImageHeader } from './image-header.js';
import type { WorkerImage } from '../runtime/protocol.js';

let canvas: OffscreenCanvas | null = null;
let context: OffscreenCanvasRenderingContext2D | null = null;

/**
 * RGBA pixels of the image (or a JPEG's planes, which preprocessing converts as libjpeg-turbo would), and
 * its encoded bytes when it arrived encoded (for a retry elsewhere).
 */
export async function decodeInWorker(
  image: WorkerImage,
  maxPixels: number,
): Promise<{ pixels: PixelImage | YCbCrImage; encoded?: Uint8Array }> {
  switch (image.kind) {
    case 'pixels': {
      checkPixels(image.width, image.height, maxPixels);
      if (image.data.length !== image.width * image.height * 4) {
        throw new InvalidInputError(
          'IMAGE_SOURCE_INVALID',
          `ImageData holds ${image.data.length} values, ${image.width}×${image.height} RGBA needs ${image.width * image.height * 4}`,
        );
      }
      return { pixels: { data: image.data, width: image.width, height: image.height, channels: 4 } };
    }
    case 'bitmap': {
      checkPixels(image.bitmap.width, image.bitmap.height, maxPixels);
      try {
        return { pixels: draw(image.bitmap, image.bitmap.width, image.bitmap.height) };
      } finally {
        image.bitmap.close();
      }
    }
    case 'frame': {
      const { displayWidth: w, displayHeight: h } = image.frame;
      try {
        checkPixels(w, h, maxPixels);
        return { pixels: (await framePixels(image.frame)) ?? draw(image.frame, w, h) };
      } finally {
        image.frame.close();
      }
    }
    case 'url':
      return decodeBytes(await fetchImageBytes(image.url), maxPixels);
    case 'blob':
      return decodeBytes(new Uint8Array(await image.blob.arrayBuffer()), maxPixels);
    case 'bytes':
      return decodeBytes(image.bytes, maxPixels);
  }
}

/** The bytes at an image URL; a failed fetch or an error status is IMAGE_SOURCE_INVALID. */
export async function fetchImageBytes(url: string | URL): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await fetch(url);
  } catch (cause) {
    throw new InvalidInputError('IMAGE_SOURCE_INVALID', `could not fetch the image: ${(cause as Error).message}`, { cause });
  }
  if (!response.ok) throw new InvalidInputError('IMAGE_SOURCE_INVALID', `fetching the image answered ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** How the worker has the browser decode: EXIF orientation applied, colours and alpha as stored (as libvips decodes). */
const AS_STORED: ImageBitmapOptions = { imageOrientation: 'from-image', premultiplyAlpha: 'none', colorSpaceConversion: 'none' };

async function decodeBytes(bytes: Uint8Array, maxPixels: number): Promise<{ pixels: PixelImage | YCbCrImage; encoded: Uint8Array }> {
  const header = checkedHeader(bytes, maxPixels);
  const planes = await jpegPlanes(bytes, header);
  if (planes) return { pixels: planes, encoded: bytes };
  const bitmap = await decodeBitmap(bytes, maxPixels, AS_STORED, header);
  try {
    return { pixels: (await opaquePixels(bitmap)) ?? draw(bitmap, bitmap.width, bitmap.height), encoded: bytes };
  } finally {
    bitmap.close();
  }
}

/** The allow-list and the header's size, checked before the browser's decoders see the bytes. */
function checkedHeader(bytes: Uint8Array, maxPixels: number): ImageHeader {
  const header = readImageHeader(bytes);
  if (header.width !== undefined && header.height !== undefined) checkPixelCount(header.width, header.height, maxPixels);
  return header;
}

/**
 * Encoded bytes as an ImageBitmap, with every check an image to segment gets: the allow-list and the pixel
 * limit from the header before the browser's decoder sees the bytes (a 2 KB file can say 16383×16383), the
 * limit again on what was decoded. Anything the page decodes from bytes it was handed goes through here:
 * the worker's images, and the video effect's background.
 */
export async function decodeBitmap(
  bytes: Uint8Array,
  maxPixels: number,
  options: ImageBitmapOptions = {},
  header: ImageHeader = checkedHeader(bytes, maxPixels),
): Promise<ImageBitmap> {
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(new Blob([bytes as BlobPart]), options);
  } catch (cause) {
    // Of the allowed formats only TIFF lacks a decoder in most browsers (Safari has one).
    if (header.format === 'tiff')
      throw new InvalidInputError(
        'IMAGE_FORMAT_UNSUPPORTED',
        'this browser could not decode the TIFF image (only Safari reads TIFF; or it is corrupt)',
        { cause },
      );
    throw new InvalidInputError(
      'IMAGE_DECODE_FAILED',
      `the ${formatName(header.format)} image could not be decoded (corrupt or truncated)`,
      { cause },
    );
  }
  try {
    checkPixels(bitmap.width, bitmap.height, maxPixels);
  } catch (error) {
    bitmap.close();
    throw error;
  }
  return bitmap;
}

/**
 * The RGBA pixels of an opaque decoded image, copied straight out of it (a VideoFrame over the bitmap):
 * one copy instead of a canvas draw and a read-back, and the same bytes, since an opaque image has
 * nothing for the canvas's premultiplied alpha to round. Null where the browser cannot (no WebCodecs, no
 * RGBA conversion) or the image has alpha: then the canvas does it.
 */
export async function opaquePixels(bitmap: ImageBitmap): Promise<PixelImage | null> {
  if (typeof VideoFrame !== 'function') return null;
  let frame: VideoFrame | undefined;
  try {
    frame = new VideoFrame(bitmap, { timestamp: 0 });
    if (frame.displayWidth !== bitmap.width || frame.displayHeight !== bitmap.height) return null;
    return await framePixels(frame);
  } catch {
    return null;
  } finally {
    frame?.close();
  }
}

/** Frame formats without alpha: what the canvas draws of them has nothing premultiplied to round. */
const OPAQUE_FORMATS = new Set(['I420', 'I422', 'I444', 'NV12', 'RGBX', 'BGRX']);

/**
 * The RGBA pixels of an opaque VideoFrame (a camera's I420 or NV12, a decoded image's BGRX), converted
 * by the browser's copyTo: the bytes a canvas draw and read-back give (the YUV matrix and range of the
 * frame's colour space, into sRGB), 3–5× faster and without the canvas, on every camera frame. Null, and
 * the canvas draws it, where the engine has no RGBA conversion (checked once on a frame of known bytes,
 * since an engine that ignores the `format` option copies the frame's own layout), the frame has alpha or
 * an orientation the copy would not apply, or its display size is not its visible size. The frame stays
 * open: it is the caller's.
 */
export async function framePixels(frame: VideoFrame): Promise<PixelImage | null> {
  try {
    if (!OPAQUE_FORMATS.has(frame.format ?? '') || !(await convertsToRgba())) return null;
    // An EXIF orientation is metadata on the frame (rotation, flip), not applied to what copyTo reads.
    const oriented = frame as VideoFrame & { rotation?: number; flip?: boolean };
    if (oriented.rotation !== 0 || oriented.flip !== false) return null;
    const { displayWidth: width, displayHeight: height } = frame;
    const visible = frame.visibleRect;
    if (!visible || visible.width !== width || visible.height !== height) return null;
    const data = new Uint8ClampedArray(width * height * 4);
    if (frame.allocationSize({ format: 'RGBA' }) !== data.length) return null;
    await frame.copyTo(data, { format: 'RGBA', colorSpace: 'srgb' });
    return { data, width, height, channels: 4 };
  } catch {
    return null;
  }
}

let rgbaConversion: Promise<boolean> | undefined;

/**
 * Whether copyTo converts to RGBA here, as the canvas does: an 8×8 I420 frame of varied bytes must copy
 * to what a canvas draws of it (an engine that ignores the `format` option copies the frame's own layout).
 */
function convertsToRgba(): Promise<boolean> {
  rgbaConversion ??= (async () => {
    if (typeof VideoFrame !== 'function' || typeof OffscreenCanvas !== 'function') return false;
    const size = 8;
    const planes = Uint8Array.from({ length: (size * size * 3) / 2 }, (_, i) => (i * 37 + 11) & 255);
    let frame: VideoFrame | undefined;
    try {
      frame = new VideoFrame(planes, { format: 'I420', codedWidth: size, codedHeight: size, timestamp: 0 });
      const copied = new Uint8Array(size * size * 4);
      await frame.copyTo(copied, { format: 'RGBA', colorSpace: 'srgb' });
      const context = new OffscreenCanvas(size, size).getContext('2d')!;
      context.drawImage(frame, 0, 0);
      const drawn = context.getImageData(0, 0, size, size, { colorSpace: 'srgb' }).data;
      return copied.every((v, i) => v === drawn[i]);
    } catch {
      return false;
    } finally {
      frame?.close();
    }
  })();
  return rgbaConversion;
}

const CHROMA: Record<string, YCbCrImage['chroma']> = { I420: { h: 2, v: 2 }, I422: { h: 2, v: 1 }, I444: { h: 1, v: 1 } };

/**
 * A JPEG's Y, Cb and Cr planes from the browser's decoder (WebCodecs' ImageDecoder), without its RGB
 * conversion, which preprocessing then does row by row, only for the rows the resize reads
 * (src/pipeline/ycbcr.ts: the same bytes as the browser's RGB decode). Decoding stops at the planes, so
 * this is the faster path at every size. Null where it does not apply and createImageBitmap decodes
 * instead: no ImageDecoder, an EXIF orientation to apply, a frame that is not 3-component YCbCr in
 * 4:2:0, 4:2:2 or 4:4:4 (gray, CMYK, 4:4:0), an image under 16 pixels a side, or any decoding failure
 * (createImageBitmap then says what is wrong).
 */
export async function jpegPlanes(bytes: Uint8Array, header: ImageHeader): Promise<YCbCrImage | null> {
  if (header.format !== 'jpeg' || header.components !== 3 || (header.orientation ?? 1) !== 1) return null;
  if (!(header.width! >= 16 && header.height! >= 16) || typeof ImageDecoder !== 'function') return null;
  let decoder: ImageDecoder | undefined;
  let frame: VideoFrame | undefined;
  try {
    decoder = new ImageDecoder({ data: bytes, type: 'image/jpeg', colorSpaceConversion: 'none' });
    frame = (await decoder.decode()).image;
    const chroma = CHROMA[frame.format ?? ''];
    const oriented = frame as VideoFrame & { rotation?: number; flip?: boolean };
    const { x, y, width, height } = frame.visibleRect!;
    if (
      !chroma ||
      oriented.rotation !== 0 ||
      oriented.flip !== false ||
      x !== 0 ||
      y !== 0 ||
      width !== header.width ||
      height !== header.height
    )
      return null;
    const data = new Uint8Array(frame.allocationSize());
    const [luma, cb, cr] = await frame.copyTo(data);
    return { kind: 'ycbcr', width, height, chroma, y: { data, ...luma! }, cb: { data, ...cb! }, cr: { data, ...cr! } };
  } catch {
    return null;
  } finally {
    frame?.close();
    decoder?.close();
  }
}

/** A decoded source's size: 0×0 is an empty image (a header that says so is a corrupt one, refused earlier). */
function checkPixels(width: number, height: number, maxPixels: number): void {
  if (!(width > 0 && height > 0)) throw new InvalidInputError('IMAGE_EMPTY', `the image is ${width}×${height}: nothing to segment`);
  checkPixelCount(width, height, maxPixels);
}

/** The pixels of anything a canvas can draw, through a reused OffscreenCanvas. */
export function draw(source: CanvasImageSource, width: number, height: number): PixelImage {
  if (!canvas || !context) {
    canvas = new OffscreenCanvas(width, height);
    context = canvas.getContext('2d', { willReadFrequently: true, alpha: true })!;
  }
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
  } else context.clearRect(0, 0, width, height);
  context.drawImage(source, 0, 0, width, height);
  const data = context.getImageData(0, 0, width, height, { colorSpace: 'srgb' }).data;
  return { data, width, height, channels: 4 };
}

/** A lossless PNG of decoded pixels, for a retry on the hosted route when no encoded bytes exist. */
export async function encodePng(pixels: PixelImage): Promise<Uint8Array> {
  const c = new OffscreenCanvas(pixels.width, pixels.height);
  const rgba = pixels.channels === 4 ? pixels.data : expandToRgba(pixels);
  c.getContext('2d')!.putImageData(new ImageData(new Uint8ClampedArray(rgba), pixels.width, pixels.height), 0, 0);
  return new Uint8Array(await (await c.convertToBlob({ type: 'image/png' })).arrayBuffer());
}

function expandToRgba(p: PixelImage): Uint8ClampedArray {
  const out = new Uint8ClampedArray(p.width * p.height * 4);
  for (let i = 0; i < p.width * p.height; i++) {
    out[i * 4] = p.data[i * 3]!;
    out[i * 4 + 1] = p.data[i * 3 + 1]!;
    out[i * 4 + 2] = p.data[i * 3 + 2]!;
    out[i * 4 + 3] = 255;
  }
  return out;
}

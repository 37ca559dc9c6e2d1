// Every kind of image a page has, turned into what the worker (by transfer) or the hosted route takes.
import { InvalidInputError } from '../errors/index.js';
import { base64ToBytes } from '../payload/base64.js';
import { readImageHeader } from '../decode/image-header.js';
import type { WorkerImage } from './protocol.js';
import { isBase64Image } from './image-string.js';

/**
 * An image: a Blob or File, encoded bytes (ArrayBuffer, Uint8Array: **transferred** to the worker, so
 * the caller's buffer is detached), ImageData (its pixels are transferred), an ImageBitmap or VideoFrame
 * (transferred), an `<img>`, `<canvas>` or `<video>` element, an OffscreenCanvas, a URL, or base64 text
 * (with or without a `data:` prefix; text is base64 only when it decodes to an image's signature, see
 * image-string.ts, and a URL otherwise).
 */
export type ImageSource =
  | Blob
  | ArrayBuffer
  | Uint8Array
  | ImageData
  | ImageBitmap
  | VideoFrame
  | HTMLImageElement
  | HTMLCanvasElement
  | HTMLVideoElement
  | OffscreenCanvas
  | string;

const has = (name: string) => typeof (globalThis as Record<string, unknown>)[name] === 'function';

/** An element or canvas the browser has decoded: read into a new bitmap at each call. */
function isDrawable(source: ImageSource): source is HTMLImageElement | HTMLCanvasElement | HTMLVideoElement | OffscreenCanvas {
  return (
    (has('HTMLImageElement') && source instanceof HTMLImageElement) ||
    (has('HTMLCanvasElement') && source instanceof HTMLCanvasElement) ||
    (has('HTMLVideoElement') && source instanceof HTMLVideoElement) ||
    (has('OffscreenCanvas') && source instanceof OffscreenCanvas)
  );
}

/** Whether `source` is still the caller's image after it was sent to the worker (nothing of it was transferred). */
export function reusable(source: ImageSource): boolean {
  return typeof source === 'string' || (has('Blob') && source instanceof Blob) || isDrawable(source);
}

export async function toWorkerImage(source: ImageSource): Promise<{ image: WorkerImage; transfer: Transferable[] }> {
  if (typeof source === 'string') {
    const text = source.trim();
    if (isBase64Image(text)) {
      const bytes = base64ToBytes(text);
      return { image: { kind: 'bytes', bytes }, transfer: [bytes.buffer] };
    }
    return { image: { kind: 'url', url: new URL(text, globalThis.location?.href).toString() }, transfer: [] };
  }
  if (has('Blob') && source instanceof Blob) return { image: { kind: 'blob', blob: source }, transfer: [] };
  if (source instanceof ArrayBuffer) return { image: { kind: 'bytes', bytes: new Uint8Array(checkAttached(source)) }, transfer: [source] };
  if (source instanceof Uint8Array) {
    checkAttached(source.buffer);
    // A view of part of a larger buffer cannot be transferred without taking the rest too: copy just it.
    const whole = source.byteOffset === 0 && source.byteLength === source.buffer.byteLength && source.buffer instanceof ArrayBuffer;
    const bytes = whole ? source : source.slice();
    return { image: { kind: 'bytes', bytes }, transfer: [bytes.buffer as ArrayBuffer] };
  }
  if (has('ImageData') && source instanceof ImageData) {
    return {
      image: { kind: 'pixels', data: source.data, width: source.width, height: source.height },
      transfer: [source.data.buffer],
    };
  }
  if (has('ImageBitmap') && source instanceof ImageBitmap) return { image: { kind: 'bitmap', bitmap: source }, transfer: [source] };
  if (has('VideoFrame') && source instanceof VideoFrame) return { image: { kind: 'frame', frame: source }, transfer: [source] };
  if (has('HTMLImageElement') && source instanceof HTMLImageElement) {
    if (!source.complete || source.naturalWidth === 0) {
      try {
        await source.decode();
      } catch (cause) {
        throw new InvalidInputError('IMAGE_DECODE_FAILED', 'the <img> element could not be decoded', { cause });
      }
    }
  }
  if (isDrawable(source)) {
    // The browser has decoded (and oriented) these already; a bitmap moves to the worker without a copy.
    let bitmap: ImageBitmap;
    try {
      bitmap = await createImageBitmap(source);
    } catch (cause) {
      throw new InvalidInputError('IMAGE_DECODE_FAILED', 'the element has no image to read (not loaded, or cross-origin without CORS)', {
        cause,
      });
    }
    return { image: { kind: 'bitmap', bitmap }, transfer: [bitmap] };
  }
  throw new InvalidInputError(
    'IMAGE_SOURCE_INVALID',
    `cannot segment a ${describe(source)}: pass a Blob, bytes, ImageData, ImageBitmap, VideoFrame, an image, canvas or video element, a URL or base64`,
  );
}

/** What the hosted route takes: a URL, or encoded bytes (pixels are encoded as a lossless PNG). */
export async function toHostedImage(source: ImageSource): Promise<string | Uint8Array | Blob> {
  // Encoded images go through the same allow-list as in the worker and in Node, so a format edgeseg
  // refuses is refused with the same code whichever backend answers.
  if (typeof source === 'string') {
    const text = source.trim();
    if (isBase64Image(text)) return checked(base64ToBytes(text));
    return new URL(text, globalThis.location?.href).toString();
  }
  // A Blob is read once: its bytes are checked and sent (the route takes base64, not the Blob's type).
  if (has('Blob') && source instanceof Blob) return checked(new Uint8Array(await source.arrayBuffer()));
  if (source instanceof ArrayBuffer) return checked(new Uint8Array(source));
  if (source instanceof Uint8Array) return checked(source);
  const bitmap = await toWorkerImage(source);
  const image = bitmap.image;
  const { width, height } =
    image.kind === 'pixels'
      ? image
      : image.kind === 'bitmap'
        ? image.bitmap
        : image.kind === 'frame'
          ? { width: image.frame.displayWidth, height: image.frame.displayHeight }
          : { width: 0, height: 0 };
  const canvas = new OffscreenCanvas(width, height);
  const ctx = canvas.getContext('2d')!;
  if (image.kind === 'pixels') ctx.putImageData(new ImageData(image.data as Uint8ClampedArray<ArrayBuffer>, width, height), 0, 0);
  else if (image.kind === 'bitmap') ctx.drawImage(image.bitmap, 0, 0);
  else if (image.kind === 'frame') ctx.drawImage(image.frame, 0, 0);
  return canvas.convertToBlob({ type: 'image/png' });
}

function checked(bytes: Uint8Array): Uint8Array {
  readImageHeader(bytes);
  return bytes;
}

/** Bytes given to an earlier call were transferred to its worker: saying so beats an empty image. */
function checkAttached<T extends ArrayBufferLike>(buffer: T): T {
  if ((buffer as { detached?: boolean }).detached === true) {
    throw new InvalidInputError(
      'IMAGE_SOURCE_INVALID',
      'the bytes were transferred to the worker by an earlier call (their buffer is detached): pass a copy to segment the same bytes twice',
    );
  }
  return buffer;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  return value.constructor?.name ?? 'object';
}

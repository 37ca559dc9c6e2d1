// A rectangular view of 8-bit interleaved pixels, so that crops cost nothing until a step must copy.
import { InvalidInputError } from '../errors/index.js';
import type { PixelImage } from './types.js';
import { ycbcrRows, type YCbCrImage } from './ycbcr.js';

export interface ImagePlane {
  data: Uint8Array | Uint8ClampedArray;
  width: number;
  height: number;
  /** Values per pixel in `data` (1 gray, 3 RGB, 4 RGBA). Colour channels are in RGB order. */
  channels: number;
  /** Values per row in `data`. */
  rowStride: number;
  /** Index in `data` of the view's first value. */
  offset: number;
  /**
   * Set on a plane whose rows are computed when read (a JPEG's planes, see ycbcr.ts; `data` is empty):
   * `rows(columns)` reads rows at those of the view's columns (increasing; the others may be left
   * stale): row y of the view starts at `offset` in `read(y)`, a buffer the next call may reuse. Only
   * the resize reads such planes; steps that need every pixel get the image converted whole.
   */
  rows?: (columns: Int32Array) => (y: number) => Uint8Array;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export function planeOf(image: PixelImage, rect: Rect = { x: 0, y: 0, width: image.width, height: image.height }): ImagePlane {
  const { width, height, channels, data } = image;
  if (!(width > 0 && height > 0) || !Number.isInteger(width) || !Number.isInteger(height)) {
    throw new InvalidInputError('IMAGE_EMPTY', `the image is ${width}×${height}: nothing to segment`);
  }
  if (data.length < width * height * channels) {
    throw new InvalidInputError(
      'IMAGE_SOURCE_INVALID',
      `pixel data holds ${data.length} values, a ${width}×${height}×${channels} image needs ${width * height * channels}`,
    );
  }
  return {
    data,
    width: rect.width,
    height: rect.height,
    channels,
    rowStride: width * channels,
    offset: (rect.y * width + rect.x) * channels,
  };
}

/** A view of a JPEG's planes whose RGB rows are converted as the resize reads them, where it reads them. */
export function ycbcrPlane(image: YCbCrImage, rect: Rect): ImagePlane {
  const rows = (columns: Int32Array) => {
    // The chroma columns under the view's columns, each once.
    const list: number[] = [];
    for (const x of columns) {
      const c = (rect.x + x) >> (image.chroma.h - 1);
      if (list[list.length - 1] !== c) list.push(c);
    }
    const chromaColumns = Int32Array.from(list);
    const convert = ycbcrRows(image);
    return (y: number) => convert(rect.y + y, chromaColumns);
  };
  return { data: new Uint8Array(0), width: rect.width, height: rect.height, channels: 3, rowStride: 0, offset: rect.x * 3, rows };
}

/** A dense plane over freshly computed values. */
export function densePlane(data: Uint8Array, width: number, height: number, channels: number): ImagePlane {
  return { data, width, height, channels, rowStride: width * channels, offset: 0 };
}

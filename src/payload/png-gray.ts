// An 8-bit grayscale PNG (colour type 0) writer for class-id masks, and the matching reader.
//
// upng-js cannot write colour type 0, and a mask written as RGBA or palette would not be the payload the
// hosted route returns (PIL mode "L"). Rows are stored unfiltered: the mask-specialised deflate below
// matches each row against the one above, which is what the PNG "Up" filter would have bought. The reader
// is ours too (fflate inflates): a CommonJS PNG library in the browser entry breaks bundlers' ESM imports.
import { Unzlib } from 'fflate';
import { InvalidInputError } from '../errors/index.js';
import { deflateMaskRows } from './deflate-mask.js';
import { PNG_SIGNATURE, readMaskHeader } from './png-header.js';

/**
 * The payload's mask PNG of class ids: 8-bit grayscale (colour type 0), as the hosted route writes it.
 *
 * @param classIds - One class id per pixel, row-major.
 * @returns The PNG's bytes (`bytesToBase64` of them is `segmentation_mask`).
 * @throws {@link InvalidInputError} `PAYLOAD_INVALID` when `classIds` is not `width × height` long.
 */
export function encodeMaskPng(classIds: Uint8Array, width: number, height: number): Uint8Array {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1 || classIds.length !== width * height) {
    throw new InvalidInputError('PAYLOAD_INVALID', `cannot write a ${width}×${height} mask from ${classIds.length} class ids`);
  }
  const stride = width + 1;
  const rows = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) rows.set(classIds.subarray(y * width, (y + 1) * width), y * stride + 1);
  const idat = deflateMaskRows(rows, stride);
  const ihdr = new Uint8Array(13);
  const view = new DataView(ihdr.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // colour type: grayscale
  // compression, filter method, interlace: all 0
  const chunks = [chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', new Uint8Array(0))];
  const total = PNG_SIGNATURE.length + chunks.reduce((n, c) => n + c.length, 0);
  const png = new Uint8Array(total);
  png.set(PNG_SIGNATURE, 0);
  let offset = PNG_SIGNATURE.length;
  for (const c of chunks) {
    png.set(c, offset);
    offset += c.length;
  }
  return png;
}

/** Masks with more pixels are refused before any is inflated: 2²⁸, five times the default image limit. */
export const MAX_MASK_PIXELS = 2 ** 28;

/**
 * Reads an 8-bit grayscale PNG mask back to class ids. Any other PNG layout is refused, and so is a mask
 * whose image data is not exactly its header's size (longer or shorter), checked as it inflates: a header
 * that lies, or a deflate bomb, costs no more memory than the mask it claims to be.
 */
export function decodeMaskPng(png: Uint8Array): {
  /** One class id per pixel, row-major. */
  classIds: Uint8Array;
  /** In pixels. */
  width: number;
  /** In pixels. */
  height: number;
} {
  const { width, height } = readMaskHeader(png);
  if (!(width > 0 && height > 0) || width * height > MAX_MASK_PIXELS) {
    throw new InvalidInputError('PAYLOAD_INVALID', `the segmentation mask PNG says it is ${width}×${height}`);
  }
  const interlaced = png[28] !== 0;
  const passes = interlaced ? ADAM7.map((p) => passSize(p, width, height)) : [{ width, height }];
  const rows = new Uint8Array(passes.reduce((n, p) => n + (p.width > 0 && p.height > 0 ? (p.width + 1) * p.height : 0), 0));
  let filled = 0;
  const inflater = new Unzlib((data) => {
    if (filled + data.length > rows.length)
      throw new InvalidInputError('PAYLOAD_INVALID', `the segmentation mask PNG holds more data than ${width}×${height} pixels`);
    rows.set(data, filled);
    filled += data.length;
  });
  try {
    for (const data of idatChunks(png)) inflater.push(data);
    inflater.push(new Uint8Array(0), true);
  } catch (cause) {
    if (cause instanceof InvalidInputError) throw cause;
    throw new InvalidInputError('PAYLOAD_INVALID', 'the segmentation mask is not a readable PNG', { cause });
  }
  if (filled !== rows.length) throw new InvalidInputError('PAYLOAD_INVALID', 'the segmentation mask PNG is truncated');
  if (!interlaced) return { classIds: unfilter(rows, width, height), width, height };
  return { classIds: deinterlace(rows, passes, width, height), width, height };
}

/** Adam7's passes: the first column and row each pass samples, and its steps. */
const ADAM7 = [
  { x: 0, y: 0, dx: 8, dy: 8 },
  { x: 4, y: 0, dx: 8, dy: 8 },
  { x: 0, y: 4, dx: 4, dy: 8 },
  { x: 2, y: 0, dx: 4, dy: 4 },
  { x: 0, y: 2, dx: 2, dy: 4 },
  { x: 1, y: 0, dx: 2, dy: 2 },
  { x: 0, y: 1, dx: 1, dy: 2 },
] as const;

function passSize(p: (typeof ADAM7)[number], width: number, height: number): { width: number; height: number } {
  return { width: Math.ceil((width - p.x) / p.dx), height: Math.ceil((height - p.y) / p.dy) };
}

/**
 * An interlaced mask (rare: libpng writes one when asked for "progressive"): each pass is its own small
 * image with its own row filters, whose pixels are then put back in their places.
 */
function deinterlace(rows: Uint8Array, passes: { width: number; height: number }[], width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height);
  let at = 0;
  passes.forEach((size, i) => {
    if (size.width <= 0 || size.height <= 0) return;
    const length = (size.width + 1) * size.height;
    const pass = unfilter(rows.subarray(at, at + length), size.width, size.height);
    at += length;
    const { x: x0, y: y0, dx, dy } = ADAM7[i]!;
    for (let y = 0; y < size.height; y++) {
      for (let x = 0; x < size.width; x++) out[(y0 + y * dy) * width + x0 + x * dx] = pass[y * size.width + x]!;
    }
  });
  return out;
}

/** The data of each IDAT chunk, in order; refuses chunks that run past the end. */
function* idatChunks(png: Uint8Array): Generator<Uint8Array> {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  for (let at = PNG_SIGNATURE.length; at + 12 <= png.length;) {
    const length = view.getUint32(at);
    if (length > png.length - at - 12) throw new InvalidInputError('PAYLOAD_INVALID', 'the segmentation mask PNG is truncated');
    const type = String.fromCharCode(png[at + 4]!, png[at + 5]!, png[at + 6]!, png[at + 7]!);
    if (type === 'IDAT') yield png.subarray(at + 8, at + 8 + length);
    if (type === 'IEND') return;
    at += 12 + length;
  }
}

/** PNG's row filters undone for one byte per pixel (None, Sub, Up, Average, Paeth); class ids out. */
function unfilter(rows: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height);
  const stride = width + 1;
  for (let y = 0; y < height; y++) {
    const filter = rows[y * stride]!;
    const s = y * stride + 1;
    const o = y * width;
    // The row above; the first row's is all zeros, which `first` stands for.
    const first = y === 0;
    const u = o - width;
    switch (filter) {
      case 0:
        out.set(rows.subarray(s, s + width), o);
        break;
      case 1:
        out[o] = rows[s]!;
        for (let x = 1; x < width; x++) out[o + x] = (rows[s + x]! + out[o + x - 1]!) & 255;
        break;
      case 2:
        if (first) out.set(rows.subarray(s, s + width), o);
        else for (let x = 0; x < width; x++) out[o + x] = (rows[s + x]! + out[u + x]!) & 255;
        break;
      case 3:
        out[o] = (rows[s]! + (first ? 0 : out[u]! >> 1)) & 255;
        for (let x = 1; x < width; x++) out[o + x] = (rows[s + x]! + ((out[o + x - 1]! + (first ? 0 : out[u + x]!)) >> 1)) & 255;
        break;
      case 4:
        // Paeth with no row above is Sub; with no pixel to the left, Up.
        out[o] = (rows[s]! + (first ? 0 : out[u]!)) & 255;
        for (let x = 1; x < width; x++) {
          const a = out[o + x - 1]!;
          const b = first ? 0 : out[u + x]!;
          const c = first ? 0 : out[u + x - 1]!;
          const pa = Math.abs(b - c);
          const pb = Math.abs(a - c);
          const pc = Math.abs(a + b - 2 * c);
          out[o + x] = (rows[s + x]! + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 255;
        }
        break;
      default:
        throw new InvalidInputError('PAYLOAD_INVALID', `the segmentation mask PNG has an unknown row filter ${filter}`);
    }
  }
  return out;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 255]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

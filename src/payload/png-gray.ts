// An 8-bit grayscale PNG (colour type 0) writer for class-id masks, and the matching reader.
//
// upng-js cannot write colour type 0, and a mask written as RGBA or palette would not be the payload the
// hosted route returns (PIL mode "L"). Rows are stored unfiltered: the mask-specialised deflate below
// matches each row against the one above, which is what the PNG "Up" filter would have bought. The reader
// is ours too (fflate inflates): a CommonJS PNG library in the browser entry breaks bundlers' ESM imports.
import { unzlibSync } from 'fflate';
import { InvalidInputError } from '../errors/index.js';
import { deflateMaskRows } from './deflate-mask.js';
import { PNG_SIGNATURE, readMaskHeader } from './png-header.js';

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

/** Reads an 8-bit grayscale PNG mask back to class ids. Any other PNG layout is refused. */
export function decodeMaskPng(png: Uint8Array): { classIds: Uint8Array; width: number; height: number } {
  const { width, height } = readMaskHeader(png);
  if (png[28] !== 0) throw new InvalidInputError('PAYLOAD_INVALID', 'the segmentation mask PNG is interlaced; masks are written without interlacing');
  let rows: Uint8Array;
  try {
    rows = unzlibSync(idatStream(png));
  } catch (cause) {
    throw new InvalidInputError('PAYLOAD_INVALID', 'the segmentation mask is not a readable PNG', { cause });
  }
  const stride = width + 1;
  if (rows.length < stride * height) throw new InvalidInputError('PAYLOAD_INVALID', 'the segmentation mask PNG is truncated');
  return { classIds: unfilterRows(rows, width, height), width, height };
}

/** The concatenated data of the IDAT chunks. */
function idatStream(png: Uint8Array): Uint8Array {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const parts: Uint8Array[] = [];
  for (let at = PNG_SIGNATURE.length; at + 8 <= png.length; ) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(png[at + 4]!, png[at + 5]!, png[at + 6]!, png[at + 7]!);
    if (at + 12 + length > png.length) throw new InvalidInputError('PAYLOAD_INVALID', 'the segmentation mask PNG is truncated');
    if (type === 'IDAT') parts.push(png.subarray(at + 8, at + 8 + length));
    if (type === 'IEND') break;
    at += 12 + length;
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/** Undoes the PNG row filters (one byte per pixel) of `height` rows, each led by its filter type. */
function unfilterRows(rows: Uint8Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const filter = rows[y * (width + 1)]!;
    const src = y * (width + 1) + 1;
    const row = y * width;
    const up = row - width;
    for (let x = 0; x < width; x++) {
      const a = x > 0 ? out[row + x - 1]! : 0;
      const b = y > 0 ? out[up + x]! : 0;
      const c = x > 0 && y > 0 ? out[up + x - 1]! : 0;
      let predicted: number;
      switch (filter) {
        case 0: predicted = 0; break;
        case 1: predicted = a; break;
        case 2: predicted = b; break;
        case 3: predicted = (a + b) >> 1; break;
        case 4: predicted = paeth(a, b, c); break;
        default: throw new InvalidInputError('PAYLOAD_INVALID', `the segmentation mask PNG has an unknown row filter (${filter})`);
      }
      out[row + x] = (rows[src + x]! + predicted) & 255;
    }
  }
  return out;
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
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

// An 8-bit grayscale PNG (colour type 0) writer for class-id masks, and the matching reader.
//
// upng-js cannot write colour type 0, and a mask written as RGBA or palette would not be the payload the
// hosted route returns (PIL mode "L"). Rows are stored unfiltered: the mask-specialised deflate below
// matches each row against the one above, which is what the PNG "Up" filter would have bought.
import UPNG from 'upng-js';
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
  readMaskHeader(png);
  let image: ReturnType<typeof UPNG.decode>;
  try {
    image = UPNG.decode(png.buffer.slice(png.byteOffset, png.byteOffset + png.byteLength) as ArrayBuffer);
  } catch (cause) {
    throw new InvalidInputError('PAYLOAD_INVALID', 'the segmentation mask is not a readable PNG', { cause });
  }
  const data = new Uint8Array(image.data as ArrayBuffer);
  if (data.length < image.width * image.height) {
    throw new InvalidInputError('PAYLOAD_INVALID', 'the segmentation mask PNG is truncated');
  }
  return { classIds: data.subarray(0, image.width * image.height), width: image.width, height: image.height };
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

// Base64 for bytes in browsers, workers and Node alike (no Buffer, no btoa string round trips of big data).
import { InvalidInputError } from '../errors/index.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DECODE = new Int16Array(256).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;
// URL-safe variants decode too.
DECODE['-'.charCodeAt(0)] = 62;
DECODE['_'.charCodeAt(0)] = 63;

/** Standard base64 with padding and no line breaks, as `segmentation_mask` carries it. */
export function bytesToBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  const CHUNK = 3 * 8192;
  for (let start = 0; start < bytes.length; start += CHUNK) {
    const end = Math.min(start + CHUNK, bytes.length);
    let s = '';
    let i = start;
    for (; i + 2 < end; i += 3) {
      const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
      s += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + ALPHABET[n & 63]!;
    }
    const rest = end - i;
    if (rest === 1) {
      const n = bytes[i]! << 16;
      s += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + '==';
    } else if (rest === 2) {
      const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
      s += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + '=';
    }
    parts.push(s);
  }
  return parts.join('');
}

/** Decodes standard or URL-safe base64; a `data:…;base64,` prefix and whitespace are ignored. */
export function base64ToBytes(text: string): Uint8Array {
  let s = text;
  if (s.startsWith('data:')) {
    const comma = s.indexOf(',');
    if (comma < 0 || !s.slice(0, comma).endsWith(';base64')) {
      throw new InvalidInputError('IMAGE_SOURCE_INVALID', 'a data: URL without ";base64," is not base64 data');
    }
    s = s.slice(comma + 1);
  }
  const out = new Uint8Array(Math.floor((s.length * 3) / 4) + 3);
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (code === 61 /* = */) break;
    if (code === 32 || code === 10 || code === 13 || code === 9) continue;
    const v = code < 256 ? DECODE[code]! : -1;
    if (v < 0) throw new InvalidInputError('IMAGE_SOURCE_INVALID', `not base64: unexpected character at ${i}`);
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 255;
    }
  }
  return out.subarray(0, o);
}

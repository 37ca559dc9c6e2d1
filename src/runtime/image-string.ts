// Tells base64 image text from a URL. Both may be made of the same characters (`api/images/abc123` is
// valid base64; `/9j/4AAQ…`, a JPEG's base64, looks like an absolute path), so what decides is whether the
// text decodes to the start of an image.
import { base64ToBytes } from '../payload/base64.js';

/** Standard or URL-safe base64, whitespace allowed, `=` padding only at the end. */
const BASE64 = /^[A-Za-z0-9+/_\-\s]+=*\s*$/;

/** No one writes a URL path this long with no dot, query or colon in it; base64 of a small image is longer. */
const LONGEST_PLAIN_PATH = 1024;

/**
 * True for a `data:` URL, and for text made only of base64 characters that either decodes to the
 * signature of an image format (PNG, JPEG, GIF, WebP, BMP, ICO, TIFF, AVIF/HEIF) or is over 1024
 * characters long (so that base64 of a format the browser cannot read gets that error, not a 404).
 * Anything else is a URL, resolved against the page: a relative path never turns into garbage bytes.
 */
export function isBase64Image(text: string): boolean {
  if (text.startsWith('data:')) return true;
  if (text.length < 16 || !BASE64.test(text)) return false;
  if (text.length > LONGEST_PLAIN_PATH) return true;
  // 16 characters (whitespace aside) decode to the 12 bytes every signature below fits in.
  const head = text.replace(/\s+/g, '').slice(0, 16);
  return startsLikeImage(base64ToBytes(head));
}

function startsLikeImage(b: Uint8Array): boolean {
  const at = (offset: number, ...bytes: number[]) => bytes.every((v, i) => b[offset + i] === v);
  const ascii = (offset: number, s: string) => at(offset, ...Array.from(s, (c) => c.charCodeAt(0)));
  return (
    at(0, 0x89, 0x50, 0x4e, 0x47) || // PNG
    at(0, 0xff, 0xd8, 0xff) || // JPEG
    ascii(0, 'GIF8') ||
    (ascii(0, 'RIFF') && ascii(8, 'WEBP')) ||
    ascii(0, 'BM') ||
    at(0, 0x00, 0x00, 0x01, 0x00) || // ICO
    at(0, 0x49, 0x49, 0x2a, 0x00) || // TIFF, little-endian
    at(0, 0x4d, 0x4d, 0x00, 0x2a) || // TIFF, big-endian
    ascii(4, 'ftyp') // AVIF, HEIF (ISO base media)
  );
}

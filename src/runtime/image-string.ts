// Tells base64 image text from a URL. Both may be made of the same characters (`api/images/abc123` is
// valid base64; `/9j/4AAQ…`, a JPEG's base64, looks like an absolute path), so what decides is whether the
// text decodes to the start of an image.
import { base64ToBytes } from '../payload/base64.js';
import { sniffImageFormat } from '../decode/image-header.js';

/** Standard or URL-safe base64, whitespace allowed, `=` padding only at the end. */
const BASE64 = /^[A-Za-z0-9+/_\-\s]+=*\s*$/;

/** No one writes a URL path this long with no dot, query or colon in it; base64 of a small image is longer. */
const LONGEST_PLAIN_PATH = 1024;

/**
 * True for a `data:` URL, and for text made only of base64 characters that either decodes to the
 * signature of an image format (those decoded, and those recognised only to be refused) or is over 1024
 * characters long (so that base64 of a format the browser cannot read gets that error, not a 404).
 * Anything else is a URL, resolved against the page: a relative path never turns into garbage bytes.
 */
export function isBase64Image(text: string): boolean {
  if (text.startsWith('data:')) return true;
  if (text.length < 16 || !BASE64.test(text)) return false;
  if (text.length > LONGEST_PLAIN_PATH) return true;
  // 16 characters (whitespace aside) decode to the 12 bytes every signature below fits in.
  const head = text.replace(/\s+/g, '').slice(0, 16);
  // Refused formats count too: their base64 then gets IMAGE_FORMAT_UNSUPPORTED, not a 404 for a path.
  return sniffImageFormat(base64ToBytes(head)) !== null;
}

// multipart/form-data (RFC 7578) read from a body the server already holds: each part's content is a view into
// that body, not a copy, so a request costs the platform what the body budget charged for it.
import { HttpError } from './http.js';

export interface FormPart {
  name: string;
  /** The `filename` parameter, where the part carries one (a file; absent on a plain field). */
  filename?: string;
  contentType?: string;
  /** A view into the body. */
  data: Buffer;
}

/** The most parts a body may have, and the most bytes of one part's headers. */
export interface MultipartLimits {
  maxParts: number;
  maxHeaderBytes: number;
}

export const DEFAULT_MULTIPART_LIMITS: MultipartLimits = { maxParts: 16, maxHeaderBytes: 8192 };

const malformed = (message: string) =>
  new HttpError(400, `the multipart body is malformed: ${message}`, 'MalformedMultipart', 'send multipart/form-data as RFC 7578 writes it');

// RFC 2046 §5.1.1: 1 to 70 characters of these, not ending in a space.
const BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

/**
 * The boundary of a `multipart/form-data` content type; null when the body is of another type. A multipart
 * type without a usable boundary is a 400 `MalformedMultipart`.
 */
export function multipartBoundary(contentType: string | undefined): string | null {
  if (contentType === undefined) return null;
  const [type = '', ...params] = contentType.split(';');
  if (type.trim().toLowerCase() !== 'multipart/form-data') return null;
  const boundary = parameters(params.join(';')).get('boundary');
  if (boundary === undefined || !BOUNDARY.test(boundary)) throw malformed('its content type has no valid boundary parameter');
  return boundary;
}

/** Every part of `body`, in order. Anything RFC 7578 does not allow is a 400 `MalformedMultipart`. */
export function parseMultipart(body: Buffer, boundary: string, limits: MultipartLimits = DEFAULT_MULTIPART_LIMITS): FormPart[] {
  const delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  // The first delimiter may open the body (no CRLF before it) or follow a preamble, which is ignored.
  let at = body.subarray(0, delimiter.length - 2).equals(delimiter.subarray(2)) ? -2 : body.indexOf(delimiter);
  if (at === -1) throw malformed('the boundary never appears');
  const parts: FormPart[] = [];
  for (;;) {
    let cursor = at + delimiter.length;
    if (body[cursor] === 0x2d && body[cursor + 1] === 0x2d) return parts; // the closing delimiter; the epilogue is ignored
    while (body[cursor] === 0x20 || body[cursor] === 0x09) cursor++; // transport padding
    if (body[cursor] !== 0x0d || body[cursor + 1] !== 0x0a) throw malformed('a boundary line has more than the boundary');
    if (parts.length === limits.maxParts) throw malformed(`it has more than ${limits.maxParts} parts`);
    const headersStart = cursor + 2;
    const headersEnd = body.indexOf('\r\n\r\n', headersStart, 'latin1');
    if (headersEnd === -1 || headersEnd - headersStart > limits.maxHeaderBytes)
      throw malformed(`a part's headers do not end within ${limits.maxHeaderBytes} bytes`);
    const next = body.indexOf(delimiter, headersEnd + 4);
    if (next === -1) throw malformed('it ends without its closing boundary');
    parts.push({ ...partHeaders(body.toString('utf8', headersStart, headersEnd)), data: body.subarray(headersEnd + 4, next) });
    at = next;
  }
}

function partHeaders(text: string): Omit<FormPart, 'data'> {
  let disposition: Map<string, string> | undefined;
  let contentType: string | undefined;
  for (const line of text.split('\r\n')) {
    if (line === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) throw malformed(`a part's header line is not "Name: value"`);
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'content-disposition') {
      const [kind = '', ...params] = value.split(';');
      if (kind.trim().toLowerCase() !== 'form-data') throw malformed('a part is not form-data');
      disposition = parameters(params.join(';'));
    } else if (name === 'content-type') contentType = value;
  }
  const name = disposition?.get('name');
  if (name === undefined) throw malformed('a part has no Content-Disposition name');
  const filename = disposition!.get('filename');
  return { name, ...(filename === undefined ? {} : { filename }), ...(contentType === undefined ? {} : { contentType }) };
}

/** `; a=b; c="d \"e\""` as a map (names lower-cased), quoted strings unescaped. */
function parameters(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const m of text.matchAll(/;?\s*([^=;\s]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)/g)) {
    const raw = m[2]!.trim();
    map.set(m[1]!.toLowerCase(), raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw);
  }
  return map;
}

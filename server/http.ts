// HTTP plumbing of the local platform: the platform's error shape, bounded bodies, CORS, isolation.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isEdgesegError } from '../src/errors/index.js';

/**
 * An error answered as `{ error: { message, type, code, hint?, field? } }` with its status: `type` as the
 * platform names it, `code` the same stable string (what clients branch on), `field` the request field at
 * fault where there is one.
 */
export class HttpError extends Error {
  /** Sent as `Retry-After` (a 503 or 429 the client may retry). */
  retryAfterS?: number;

  constructor(
    readonly status: number,
    message: string,
    readonly type: string,
    readonly hint?: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, hint?: string, field?: string) => new HttpError(400, message, 'ValidationError', hint, field);

/**
 * The answer to an error that reached the dispatcher: an HttpError as it is; an error of edgeseg's with its
 * code, as the command line reports it (bad image input 400, 413 past the pixel limit; a model package that
 * cannot be loaded, a hostile one included, 422: the request was fine, the version's model is not); null for
 * anything else, a fault of the server's own (500, its stack logged).
 */
export function httpErrorOf(error: unknown): HttpError | null {
  if (error instanceof HttpError) return error;
  if (!isEdgesegError(error)) return null;
  if (error.name === 'InvalidInputError') return new HttpError(error.code === 'IMAGE_TOO_LARGE' ? 413 : 400, error.message, error.code);
  if (error.name === 'ModelPackageError')
    return new HttpError(422, error.message, error.code, "the version's model package cannot be run: replace its files");
  return null;
}
export const notFound = (message: string, hint?: string) => new HttpError(404, message, 'NotFound', hint);

/**
 * CORS headers. `origin` is the origin granted: `*` on the signed file routes (the signature is the
 * credential, and isolated pages on any origin load model files), the caller's own origin on the keyed
 * routes when the access policy allows it, none otherwise (the browser then withholds the answer).
 */
export function setCorsHeaders(res: ServerResponse, origin: string | null): void {
  if (origin === null) return;
  res.setHeader('access-control-allow-origin', origin);
  if (origin !== '*') res.setHeader('vary', 'Origin');
  res.setHeader('access-control-allow-methods', 'GET, POST, PUT, OPTIONS');
  // No `authorization`: the key is the `api_key` parameter, and the server reads no other credential.
  res.setHeader('access-control-allow-headers', 'content-type');
  res.setHeader('access-control-expose-headers', 'retry-after, content-length');
  res.setHeader('access-control-max-age', '600');
}

/** Isolated pages on any origin may embed the files (the answers to keyed routes need CORS anyway). */
export function setResourcePolicy(res: ServerResponse): void {
  res.setHeader('cross-origin-resource-policy', 'cross-origin');
}

/** Headers for pages: cross-origin isolated, so that WASM may use threads. */
export function setIsolationHeaders(res: ServerResponse): void {
  res.setHeader('cross-origin-opener-policy', 'same-origin');
  res.setHeader('cross-origin-embedder-policy', 'require-corp');
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendError(res: ServerResponse, error: HttpError): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const { status, message, type, hint, field } = error;
  if (error.retryAfterS !== undefined) res.setHeader('retry-after', String(error.retryAfterS));
  sendJson(res, status, { error: { message, type, code: type, ...(hint ? { hint } : {}), ...(field ? { field } : {}) } });
}

/** A request's share of the server's budget for bodies (body-budget.ts): 503 `ServerBusy` when it cannot grow. */
export interface BodyHold {
  /** Takes the hold to `bytes` (a no-op below what it holds already). */
  grow(bytes: number): void;
}

/**
 * The request body, refused with 413 beyond `limit` bytes, each byte charged to `hold` (503 `ServerBusy`
 * past the server's budget for bodies, see body-budget.ts) before it is kept: a declared length is charged
 * before any byte is read. Once refused, the rest of the upload is read and dropped, so that the client
 * gets the answer rather than a reset connection.
 */
export async function readBody(req: IncomingMessage, limit: number, hold: BodyHold): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw new HttpError(413, `the request body is ${declared} bytes; the limit is ${limit}`, 'PayloadTooLarge');
  if (Number.isSafeInteger(declared)) hold.grow(declared);
  return await new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    };
    const refuse = (error: Error) => {
      stop();
      chunks.length = 0;
      req.on('error', () => {}).resume();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      try {
        if (size > limit) throw new HttpError(413, `the request body is over the limit of ${limit} bytes`, 'PayloadTooLarge');
        hold.grow(size);
      } catch (error) {
        return refuse(error as Error);
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    // The client went away before the body ended.
    const onClose = () => onError(new Error('the request was aborted before its body arrived'));
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/** Deeper than this, a JSON body is refused before it is parsed: no route takes more than a few levels. */
export const MAX_JSON_DEPTH = 32;

export async function readJson(req: IncomingMessage, limit: number, hold: BodyHold): Promise<Record<string, unknown>> {
  const body = await readBody(req, limit, hold);
  if (body.length === 0) return {};
  let text: string;
  try {
    // Fatal: a replacement character would otherwise stand silently for bytes the client meant.
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw badRequest('the request body is not UTF-8 text', 'send JSON encoded as UTF-8');
  }
  if (jsonDepth(text) > MAX_JSON_DEPTH) throw badRequest(`the request body nests deeper than ${MAX_JSON_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('the request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('the request body must be a JSON object');
  return value as Record<string, unknown>;
}

/** The deepest nesting of arrays and objects in JSON text (brackets inside strings do not count). */
function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/**
 * A whole number in `[min, max]` (both within the safe integers), or `fallback` when absent. Anything
 * else (a fraction, 1e30, a string, Infinity from 1e400) is a 400 naming the field.
 */
export function integerField(value: unknown, field: string, range: { min: number; max: number }, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < range.min || value > range.max) {
    throw badRequest(`${field} must be a whole number in ${range.min}..${range.max}, got ${shown(value)}`, undefined, field);
  }
  return value;
}

/** A value from a request as an error message shows it: JSON, except numbers (1e400 is Infinity, not null). */
export function shown(value: unknown): string {
  return typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? typeof value);
}

/** A string of at most `maxLength` characters, or undefined when absent. */
export function stringField(value: unknown, field: string, maxLength: number): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw badRequest(`${field} must be a string`, undefined, field);
  if (value.length > maxLength) throw badRequest(`${field} is ${value.length} characters; the limit is ${maxLength}`, undefined, field);
  return value;
}

/** Checks the types of the fields a route knows; unknown fields of the wrong type are refused. */
export function checkFields(
  body: Record<string, unknown>,
  types: Record<string, 'string' | 'number' | 'boolean' | 'string|boolean' | 'string[]'>,
): void {
  for (const [key, type] of Object.entries(types)) {
    const v = body[key];
    if (v === undefined || v === null) continue;
    const ok =
      type === 'string[]'
        ? Array.isArray(v) && v.every((x) => typeof x === 'string')
        : type === 'string|boolean'
          ? typeof v === 'string' || typeof v === 'boolean'
          : typeof v === type;
    if (!ok)
      throw badRequest(`${key} must be ${type === 'string[]' ? 'a list of strings' : `a ${type.replace('|', ' or ')}`}`, undefined, key);
  }
}

// HTTP plumbing of the local platform: the platform's error shape, bounded bodies, CORS, isolation.
import type { IncomingMessage, ServerResponse } from 'node:http';

/** An error answered as `{ error: { message, type, hint } }` with its status. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, hint?: string) => new HttpError(400, message, 'ValidationError', hint);
export const notFound = (message: string, hint?: string) => new HttpError(404, message, 'NotFound', hint);

/** Headers on every answer: browsers on any origin may call the platform, and read its files from isolated pages. */
export function setCommonHeaders(res: ServerResponse): void {
  res.setHeader('access-control-allow-origin', '*');
  res.setHeader('access-control-allow-methods', 'GET, POST, PUT, OPTIONS');
  res.setHeader('access-control-allow-headers', 'content-type, authorization');
  res.setHeader('access-control-expose-headers', 'retry-after, content-length');
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
  sendJson(res, error.status, { error: { message: error.message, type: error.type, ...(error.hint ? { hint: error.hint } : {}) } });
}

/** The request body, refused with 413 beyond `limit` bytes (and the rest of the upload not read). */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw new HttpError(413, `the request body is ${declared} bytes; the limit is ${limit}`, 'PayloadTooLarge');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new HttpError(413, `the request body is over the limit of ${limit} bytes`, 'PayloadTooLarge');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export async function readJson(req: IncomingMessage, limit: number): Promise<Record<string, unknown>> {
  const body = await readBody(req, limit);
  if (body.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    throw badRequest('the request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('the request body must be a JSON object');
  return value as Record<string, unknown>;
}

/** Checks the types of the fields a route knows; unknown fields of the wrong type are refused. */
export function checkFields(body: Record<string, unknown>, types: Record<string, 'string' | 'number' | 'boolean' | 'string|boolean' | 'string[]'>): void {
  for (const [key, type] of Object.entries(types)) {
    const v = body[key];
    if (v === undefined || v === null) continue;
    const ok =
      type === 'string[]' ? Array.isArray(v) && v.every((x) => typeof x === 'string') : type === 'string|boolean' ? typeof v === 'string' || typeof v === 'boolean' : typeof v === type;
    if (!ok) throw badRequest(`${key} must be ${type === 'string[]' ? 'a list of strings' : `a ${type.replace('|', ' or ')}`}`);
  }
}

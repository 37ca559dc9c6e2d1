// The one mapping from an HTTP answer to an error class, and the parsing of every error body shape the
// platform is known to send.
import { AuthenticationError } from './authentication-error.js';
import { InvalidRequestError } from './invalid-request-error.js';
import { NotFoundError } from './not-found-error.js';
import { PaymentRequiredError } from './payment-required-error.js';
import { PlatformError, type PlatformErrorOptions } from './platform-error.js';
import { RateLimitError } from './rate-limit-error.js';
import { ServerError } from './server-error.js';

export interface ErrorDetails {
  message: string | undefined;
  type: string | undefined;
  hint: string | undefined;
}

/**
 * Reads `{error: {message, type, hint}}`, `{error: "…"}`, `{error: code, message}`, `{message}`,
 * `{detail: "…" | [{msg, loc}]}` and plain text.
 */
export function errorDetails(body: unknown): ErrorDetails {
  const none: ErrorDetails = { message: undefined, type: undefined, hint: undefined };
  if (typeof body === 'string') return { ...none, message: body.trim().slice(0, 300) || undefined };
  if (typeof body !== 'object' || body === null) return none;
  const b = body as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : undefined);
  if (typeof b.error === 'object' && b.error !== null) {
    const e = b.error as Record<string, unknown>;
    return { message: str(e.message), type: str(e.type), hint: str(e.hint) };
  }
  if (typeof b.error === 'string') {
    // `{error: code, message}` when a message is present, `{error: "message"}` otherwise.
    return str(b.message) ? { message: str(b.message), type: b.error, hint: str(b.hint) } : { ...none, message: b.error };
  }
  if (str(b.message)) return { ...none, message: str(b.message), type: str(b.type) };
  if (typeof b.detail === 'string') return { ...none, message: b.detail };
  if (Array.isArray(b.detail)) {
    const parts = b.detail.map((d) => {
      if (typeof d === 'string') return d;
      const item = (d ?? {}) as { msg?: unknown; loc?: unknown };
      const loc = Array.isArray(item.loc) ? item.loc.join('.') : undefined;
      return [loc, typeof item.msg === 'string' ? item.msg : JSON.stringify(d)].filter(Boolean).join(': ');
    });
    return { ...none, message: parts.join('; ') || undefined, type: 'ValidationError' };
  }
  return none;
}

/** Seconds from a Retry-After header (delta seconds or an HTTP date); undefined when absent or odd. */
export function retryAfterSeconds(headers: Headers | undefined, now = Date.now()): number | undefined {
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

export function errorFromResponse(
  status: number,
  body: unknown,
  headers: Headers | undefined,
  request: { method: string; url: string },
): PlatformError {
  const { message, type, hint } = errorDetails(body);
  const options: PlatformErrorOptions = {
    status,
    method: request.method,
    url: request.url,
    body,
    ...(type ? { type } : {}),
    ...(hint ? { hint } : {}),
  };
  const text = `${request.method} ${request.url} answered ${status}${message ? `: ${message}` : ''}${hint ? ` (${hint})` : ''}`;
  if (status === 401 || status === 403 || (status === 404 && type === 'GraphMethodException'))
    return new AuthenticationError(text, options);
  if (status === 404) return new NotFoundError(text, options);
  if (status === 400 || status === 422) return new InvalidRequestError(text, options);
  if (status === 402 || status === 423) return new PaymentRequiredError(text, options);
  // Retry-After is sent with 429 and with 503 (RFC 9110 §10.2.3); both errors keep it for the retry loop and the caller.
  const retryAfter = status === 429 || status >= 500 ? retryAfterSeconds(headers) : undefined;
  const waiting = retryAfter === undefined ? options : { ...options, retryAfter };
  if (status === 429) return new RateLimitError(text, waiting);
  if (status >= 500) return new ServerError(text, waiting);
  return new PlatformError('HTTP_ERROR', text, options);
}

// The base class of every error the platform clients throw: HTTP answers, connection problems, aborts.
import { redact } from '../redact.js';

export type PlatformErrorCode =
  | 'AUTHENTICATION'
  | 'NOT_FOUND'
  | 'INVALID_REQUEST'
  | 'PAYMENT_REQUIRED'
  | 'RATE_LIMITED'
  | 'SERVER_ERROR'
  | 'HTTP_ERROR'
  | 'INVALID_RESPONSE'
  | 'CONNECTION_FAILED'
  | 'TIMEOUT'
  | 'ABORTED';

export interface PlatformErrorOptions {
  /** HTTP status, when the platform answered. */
  status?: number;
  /** The request's method and URL, API key masked. */
  method?: string;
  /** The request's URL, API key masked. */
  url?: string;
  /** The platform's error type (`GraphMethodException`, `ValidationError`, …) and hint, when it said. */
  type?: string;
  /** The platform's hint, when it gave one. */
  hint?: string;
  /** The answer's body as received (parsed JSON, or text), for callers that need more. */
  body?: unknown;
  /** What caused it (a network error, an abort), as `Error.cause`. */
  cause?: unknown;
}

/**
 * Any failure talking to the platform. Branch on `code` or the subclass (`isPlatformError` and the
 * guards work across realms by `name`). Messages, `url` and `toJSON()` never contain an API key.
 */
export class PlatformError extends Error {
  override name: string = 'PlatformError';
  readonly code: PlatformErrorCode;
  readonly status: number | undefined;
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly type: string | undefined;
  readonly hint: string | undefined;
  readonly body: unknown;

  constructor(code: PlatformErrorCode, message: string, options: PlatformErrorOptions = {}) {
    super(redact(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status;
    this.method = options.method;
    this.url = options.url === undefined ? undefined : redact(options.url);
    this.type = options.type;
    this.hint = options.hint;
    this.body = options.body;
  }

  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      message: this.message,
      status: this.status,
      method: this.method,
      url: this.url,
      type: this.type,
      hint: this.hint,
    };
  }
}

// The base class of every error the platform clients throw but aborts: HTTP answers, connection problems.
import { redact } from '../redact.js';

/** Every `code` a {@link PlatformError} may carry: branch on these, never on messages. */
export type PlatformErrorCode =
  /** {@link AuthenticationError}: 401, 403, or the platform's 404 with `GraphMethodException`. */
  | 'AUTHENTICATION'
  /** {@link NotFoundError}: 404. */
  | 'NOT_FOUND'
  /** {@link InvalidRequestError}: 400, 422, or refused before sending. */
  | 'INVALID_REQUEST'
  /** {@link PaymentRequiredError}: 402, 423. */
  | 'PAYMENT_REQUIRED'
  /** {@link RateLimitError}: 429. */
  | 'RATE_LIMITED'
  /** {@link ServerError}: 5xx. */
  | 'SERVER_ERROR'
  /** A `PlatformError` itself: any other status that is not 2xx. */
  | 'HTTP_ERROR'
  /** {@link InvalidResponseError}: a 2xx answer of the wrong shape. */
  | 'INVALID_RESPONSE'
  /** {@link ConnectionError}: no answer came. */
  | 'CONNECTION_FAILED'
  /** {@link TimeoutError}: no answer within `timeoutMs`. */
  | 'TIMEOUT'
  /** No `PlatformError` has it any more: an abort is an `EdgesegAbortError` (code `ABORTED`). Left in the union for one release. */
  | 'ABORTED';

/** What a {@link PlatformError} carries beside its code and message: the request, and the answer where there was one. */
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
 * Any failure talking to the platform but an abort (that is `EdgesegAbortError`, as every abort). Branch on
 * `code` or the subclass (`isPlatformError` and the guards work across realms by `name`). Messages, `url`
 * and `toJSON()` never contain an API key.
 *
 * @example
 * ```ts
 * try {
 *   await platform.project('my-workspace', 'my-project');
 * } catch (error) {
 *   if (isRateLimitError(error)) await new Promise((r) => setTimeout(r, (error.retryAfter ?? 10) * 1000));
 *   else if (isPlatformError(error) && error.code === 'NOT_FOUND') console.log('no such project');
 *   else throw error;
 * }
 * ```
 */
export class PlatformError extends Error {
  /** The class's name (each subclass sets its own), which the guards read across realms. */
  override name: string = 'PlatformError';
  /** What went wrong, as a stable string to branch on. */
  readonly code: PlatformErrorCode;
  /** The HTTP status, when the platform answered; undefined for a connection failure, a timeout, a request refused before sending. */
  readonly status: number | undefined;
  /** The request's HTTP method, when a request was made. */
  readonly method: string | undefined;
  /** The request's URL with its API key masked (`api_key=***`), when a request was made. */
  readonly url: string | undefined;
  /** The platform's own error type (`GraphMethodException`, `ValidationError`, …), when its answer said. */
  readonly type: string | undefined;
  /** The platform's hint on what to do, when its answer gave one. */
  readonly hint: string | undefined;
  /** The answer's body as received (parsed JSON, or text), for callers that need more; undefined when there was no answer. */
  readonly body: unknown;

  /**
   * @param code - The stable code.
   * @param message - For people; any API key in it is masked.
   * @param options - The request, and the answer where there was one.
   */
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

  /** `{ name, code, message, status, method, url, type, hint }`, without `body` (which may be large): what a log line needs. */
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

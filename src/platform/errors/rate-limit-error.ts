// 429: too many requests. `retryAfter` is the wait the platform asked for, in seconds, when it said.
import { PlatformError, type PlatformErrorOptions } from './platform-error.js';

/**
 * 429: too many requests. Requests that are safe to repeat are retried (`maxRetries`), waiting
 * `Retry-After` where the platform sent it; this is the last attempt's.
 */
export class RateLimitError extends PlatformError {
  /** `'RateLimitError'`, in every realm. */
  override name = 'RateLimitError' as const;
  /** Always `RATE_LIMITED`. */
  declare readonly code: 'RATE_LIMITED';
  /** The wait the platform asked for (`Retry-After`), in seconds; undefined when it did not say. */
  readonly retryAfter: number | undefined;

  /**
   * @param message - For people; any API key in it is masked.
   * @param options - The request, the answer, and the wait it asked for (`retryAfter`, seconds).
   */
  constructor(message: string, options: PlatformErrorOptions & { retryAfter?: number } = {}) {
    super('RATE_LIMITED', message, options);
    this.retryAfter = options.retryAfter;
  }

  /** {@link PlatformError.toJSON}'s fields and `retryAfter`. */
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), retryAfter: this.retryAfter };
  }
}

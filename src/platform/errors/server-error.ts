// 5xx: the platform failed. `retryAfter` is the wait it asked for, in seconds, when it said (503 may).
import { PlatformError, type PlatformErrorOptions } from './platform-error.js';

/**
 * 5xx: the platform failed. On 502, 503 and 504 requests that are safe to repeat are retried (`maxRetries`),
 * waiting `Retry-After` where the platform sent it; this is the last attempt's.
 */
export class ServerError extends PlatformError {
  /** `'ServerError'`, in every realm. */
  override name = 'ServerError' as const;
  /** Always `SERVER_ERROR`. */
  declare readonly code: 'SERVER_ERROR';
  /** The wait the platform asked for (`Retry-After`), in seconds; undefined when it did not say. */
  readonly retryAfter: number | undefined;

  /**
   * @param message - For people; any API key in it is masked.
   * @param options - The request, the answer, and the wait it asked for (`retryAfter`, seconds).
   */
  constructor(message: string, options: PlatformErrorOptions & { retryAfter?: number } = {}) {
    super('SERVER_ERROR', message, options);
    this.retryAfter = options.retryAfter;
  }

  /** {@link PlatformError.toJSON}'s fields and `retryAfter`. */
  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), retryAfter: this.retryAfter };
  }
}

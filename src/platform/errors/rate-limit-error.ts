// 429: too many requests. `retryAfter` is the wait the platform asked for, in seconds, when it said.
import { PlatformError, type PlatformErrorOptions } from './platform-error.js';

export class RateLimitError extends PlatformError {
  override name = 'RateLimitError' as const;
  declare readonly code: 'RATE_LIMITED';
  readonly retryAfter: number | undefined;

  constructor(message: string, options: PlatformErrorOptions & { retryAfter?: number } = {}) {
    super('RATE_LIMITED', message, options);
    this.retryAfter = options.retryAfter;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), retryAfter: this.retryAfter };
  }
}

// 5xx: the platform failed. `retryAfter` is the wait it asked for, in seconds, when it said (503 may).
import { PlatformError, type PlatformErrorOptions } from './platform-error.js';

export class ServerError extends PlatformError {
  override name = 'ServerError' as const;
  declare readonly code: 'SERVER_ERROR';
  readonly retryAfter: number | undefined;

  constructor(message: string, options: PlatformErrorOptions & { retryAfter?: number } = {}) {
    super('SERVER_ERROR', message, options);
    this.retryAfter = options.retryAfter;
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), retryAfter: this.retryAfter };
  }
}

// 5xx: the platform failed.
import { PlatformError, type PlatformErrorOptions } from './platform-error.js';

export class ServerError extends PlatformError {
  override name = 'ServerError' as const;
  declare readonly code: 'SERVER_ERROR';

  constructor(message: string, options?: PlatformErrorOptions) {
    super('SERVER_ERROR', message, options);
  }
}

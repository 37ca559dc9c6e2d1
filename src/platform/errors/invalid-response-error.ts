// The platform answered 2xx with a body that is not what the route returns.
import { PlatformError, type PlatformErrorOptions } from './platform-error.js';

export class InvalidResponseError extends PlatformError {
  override name = 'InvalidResponseError' as const;
  declare readonly code: 'INVALID_RESPONSE';

  constructor(message: string, options?: PlatformErrorOptions) {
    super('INVALID_RESPONSE', message, options);
  }
}

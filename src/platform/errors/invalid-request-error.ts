// 400 or 422, or a request refused before sending because it breaks a documented rule.
import { PlatformError, type PlatformErrorOptions } from './platform-error.js';

export class InvalidRequestError extends PlatformError {
  override name = 'InvalidRequestError' as const;
  declare readonly code: 'INVALID_REQUEST';

  constructor(message: string, options?: PlatformErrorOptions) {
    super('INVALID_REQUEST', message, options);
  }
}

// 401, 403, or the platform's 404 with GraphMethodException: the key is missing, wrong, or not allowed here.
import { PlatformError, type PlatformErrorOptions } from './platform-error.js';

export class AuthenticationError extends PlatformError {
  override name = 'AuthenticationError' as const;
  declare readonly code: 'AUTHENTICATION';

  constructor(message: string, options?: PlatformErrorOptions) {
    super('AUTHENTICATION', message, options);
  }
}

// No answer: DNS, refused or dropped connection.
import { PlatformError, type PlatformErrorOptions } from './platform-error.js';

export class ConnectionError extends PlatformError {
  override name = 'ConnectionError' as const;
  declare readonly code: 'CONNECTION_FAILED';

  constructor(message: string, options?: PlatformErrorOptions) {
    super('CONNECTION_FAILED', message, options);
  }
}

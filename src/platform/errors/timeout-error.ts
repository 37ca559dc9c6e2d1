// No answer within timeoutMs.
import { PlatformError, type PlatformErrorOptions } from './platform-error.js';

export class TimeoutError extends PlatformError {
  override name = 'TimeoutError' as const;
  declare readonly code: 'TIMEOUT';

  constructor(message: string, options?: PlatformErrorOptions) {
    super('TIMEOUT', message, options);
  }
}

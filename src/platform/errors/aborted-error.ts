// The caller's AbortSignal fired.
import { PlatformError, type PlatformErrorOptions } from './platform-error.js';

export class AbortedError extends PlatformError {
  override name = 'AbortedError' as const;
  declare readonly code: 'ABORTED';

  constructor(message: string, options?: PlatformErrorOptions) {
    super('ABORTED', message, options);
  }
}

// No answer: DNS, refused or dropped connection.
import { PlatformError, type PlatformErrorOptions } from './platform-error.js';

/**
 * No answer came: the name did not resolve, the connection was refused or dropped. Requests that are safe to
 * repeat are retried (`maxRetries`); this is the last attempt's.
 */
export class ConnectionError extends PlatformError {
  /** `'ConnectionError'`, in every realm. */
  override name = 'ConnectionError' as const;
  /** Always `CONNECTION_FAILED`. */
  declare readonly code: 'CONNECTION_FAILED';

  /**
   * @param message - For people; any API key in it is masked.
   * @param options - The request, and the answer where there was one.
   */
  constructor(message: string, options?: PlatformErrorOptions) {
    super('CONNECTION_FAILED', message, options);
  }
}

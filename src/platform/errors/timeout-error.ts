// No answer within timeoutMs.
import { PlatformError, type PlatformErrorOptions } from './platform-error.js';

/**
 * No answer within the client's `timeoutMs` (per attempt). Not retried: the server may still be working on
 * the request.
 */
export class TimeoutError extends PlatformError {
  /** `'TimeoutError'`, in every realm. */
  override name = 'TimeoutError' as const;
  /** Always `TIMEOUT`. */
  declare readonly code: 'TIMEOUT';

  /**
   * @param message - For people; any API key in it is masked.
   * @param options - The request, and the answer where there was one.
   */
  constructor(message: string, options?: PlatformErrorOptions) {
    super('TIMEOUT', message, options);
  }
}

// 401, 403, or the platform's 404 with GraphMethodException: the key is missing, wrong, or not allowed here.
import { PlatformError, type PlatformErrorOptions } from './platform-error.js';

/**
 * The platform refused the key: 401, 403, or its 404 with `GraphMethodException` (the key is missing, wrong,
 * or not allowed here). Not retried.
 */
export class AuthenticationError extends PlatformError {
  /** `'AuthenticationError'`, in every realm. */
  override name = 'AuthenticationError' as const;
  /** Always `AUTHENTICATION`. */
  declare readonly code: 'AUTHENTICATION';

  /**
   * @param message - For people; any API key in it is masked.
   * @param options - The request, and the answer where there was one.
   */
  constructor(message: string, options?: PlatformErrorOptions) {
    super('AUTHENTICATION', message, options);
  }
}

// The platform answered 2xx with a body that is not what the route returns.
import { PlatformError, type PlatformErrorOptions } from './platform-error.js';

/**
 * The platform answered 2xx with a body that is not what the route returns (not a JSON object, a search page with no
 * `results`, a hosted payload whose mask does not decode to its size); `url`, `status` and `body` say which.
 */
export class InvalidResponseError extends PlatformError {
  /** `'InvalidResponseError'`, in every realm. */
  override name = 'InvalidResponseError' as const;
  /** Always `INVALID_RESPONSE`. */
  declare readonly code: 'INVALID_RESPONSE';

  /**
   * @param message - For people; any API key in it is masked.
   * @param options - The request, and the answer where there was one.
   */
  constructor(message: string, options?: PlatformErrorOptions) {
    super('INVALID_RESPONSE', message, options);
  }
}

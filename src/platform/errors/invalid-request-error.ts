// 400 or 422, or a request refused before sending because it breaks a documented rule.
import { PlatformError, type PlatformErrorOptions } from './platform-error.js';

/**
 * 400 or 422; or a request refused before it was sent because it breaks one of the platform's documented
 * rules (a search `limit` over 250, a version that is not a whole number): the message names the rule.
 */
export class InvalidRequestError extends PlatformError {
  /** `'InvalidRequestError'`, in every realm. */
  override name = 'InvalidRequestError' as const;
  /** Always `INVALID_REQUEST`. */
  declare readonly code: 'INVALID_REQUEST';

  /**
   * @param message - For people; any API key in it is masked.
   * @param options - The request, and the answer where there was one.
   */
  constructor(message: string, options?: PlatformErrorOptions) {
    super('INVALID_REQUEST', message, options);
  }
}

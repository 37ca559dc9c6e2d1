// 402 or 423: a plan limit or quota.
import { PlatformError, type PlatformErrorOptions } from './platform-error.js';

/**
 * 402 or 423: the workspace's plan limit or quota.
 */
export class PaymentRequiredError extends PlatformError {
  /** `'PaymentRequiredError'`, in every realm. */
  override name = 'PaymentRequiredError' as const;
  /** Always `PAYMENT_REQUIRED`. */
  declare readonly code: 'PAYMENT_REQUIRED';

  /**
   * @param message - For people; any API key in it is masked.
   * @param options - The request, and the answer where there was one.
   */
  constructor(message: string, options?: PlatformErrorOptions) {
    super('PAYMENT_REQUIRED', message, options);
  }
}

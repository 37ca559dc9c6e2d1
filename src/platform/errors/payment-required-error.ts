// 402 or 423: a plan limit or quota.
import { PlatformError, type PlatformErrorOptions } from './platform-error.js';

export class PaymentRequiredError extends PlatformError {
  override name = 'PaymentRequiredError' as const;
  declare readonly code: 'PAYMENT_REQUIRED';

  constructor(message: string, options?: PlatformErrorOptions) {
    super('PAYMENT_REQUIRED', message, options);
  }
}

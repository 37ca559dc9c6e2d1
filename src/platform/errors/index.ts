// The platform clients' errors: one base class, one class per file, one mapping from HTTP answers.
export { PlatformError, type PlatformErrorCode, type PlatformErrorOptions } from './platform-error.js';
export { AuthenticationError } from './authentication-error.js';
export { NotFoundError } from './not-found-error.js';
export { InvalidRequestError } from './invalid-request-error.js';
export { PaymentRequiredError } from './payment-required-error.js';
export { RateLimitError } from './rate-limit-error.js';
export { ServerError } from './server-error.js';
export { ConnectionError } from './connection-error.js';
export { TimeoutError } from './timeout-error.js';
export { AbortedError } from './aborted-error.js';
export { InvalidResponseError } from './invalid-response-error.js';
export { errorFromResponse, errorDetails, retryAfterSeconds } from './error-from-response.js';
export { isPlatformError, isRateLimitError, isAuthenticationError } from './guards.js';

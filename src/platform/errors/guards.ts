// Type guards that work across realms (a worker, an iframe) by checking `name`, not `instanceof`.
import type { AuthenticationError } from './authentication-error.js';
import { PlatformError } from './platform-error.js';
import type { RateLimitError } from './rate-limit-error.js';

const NAMES = new Set([
  'PlatformError',
  'AuthenticationError',
  'NotFoundError',
  'InvalidRequestError',
  'PaymentRequiredError',
  'RateLimitError',
  'ServerError',
  'ConnectionError',
  'TimeoutError',
  'AbortedError',
  'InvalidResponseError',
]);

const named = (value: unknown, name?: string) =>
  typeof value === 'object' &&
  value !== null &&
  (name ? (value as { name?: unknown }).name === name : NAMES.has((value as { name?: unknown }).name as string));

/**
 * True for any {@link PlatformError}, also one made in another realm (a worker, an iframe), where
 * `instanceof` does not reach: it checks the class's `name`.
 */
export function isPlatformError(value: unknown): value is PlatformError {
  return value instanceof PlatformError || named(value);
}
/** True for a {@link RateLimitError} (429), also one made in another realm; its `retryAfter` says how long to wait. */
export function isRateLimitError(value: unknown): value is RateLimitError {
  return named(value, 'RateLimitError');
}
/** True for an {@link AuthenticationError} (the key is missing, wrong or not allowed), also one made in another realm. */
export function isAuthenticationError(value: unknown): value is AuthenticationError {
  return named(value, 'AuthenticationError');
}

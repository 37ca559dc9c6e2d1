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

export function isPlatformError(value: unknown): value is PlatformError {
  return value instanceof PlatformError || named(value);
}
export function isRateLimitError(value: unknown): value is RateLimitError {
  return named(value, 'RateLimitError');
}
export function isAuthenticationError(value: unknown): value is AuthenticationError {
  return named(value, 'AuthenticationError');
}

// The caller passed something edgeseg cannot use: an undecodable image, a confidence out of range.
import type { InvalidInputCode } from './codes.js';
import { EdgesegError, type EdgesegErrorOptions } from './edgeseg-error.js';

/**
 * The caller passed something edgeseg cannot use: an image that does not decode or is too large, an option
 * out of range, a model written in a form no call takes. The message says what to pass instead.
 */
export class InvalidInputError extends EdgesegError {
  /** `'InvalidInputError'`, in every realm. */
  override name = 'InvalidInputError' as const;
  /** Which input, and what is wrong with it. */
  declare readonly code: InvalidInputCode;

  /**
   * @param code - Which input, and what is wrong with it.
   * @param message - For people: what was given, and what to pass instead.
   * @param options - The cause.
   */
  constructor(code: InvalidInputCode, message: string, options?: EdgesegErrorOptions) {
    super(code, message, options);
  }
}

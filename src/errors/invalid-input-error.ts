// The caller passed something edgeseg cannot use: an undecodable image, a confidence out of range.
import type { InvalidInputCode } from './codes.js';
import { EdgesegError, type EdgesegErrorOptions } from './edgeseg-error.js';

export class InvalidInputError extends EdgesegError {
  override name = 'InvalidInputError' as const;
  declare readonly code: InvalidInputCode;

  constructor(code: InvalidInputCode, message: string, options?: EdgesegErrorOptions) {
    super(code, message, options);
  }
}

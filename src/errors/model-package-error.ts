// A model package is missing a file, is malformed, or describes a model edgeseg cannot run.
import type { ModelPackageCode } from './codes.js';
import { EdgesegError, type EdgesegErrorOptions } from './edgeseg-error.js';

export class ModelPackageError extends EdgesegError {
  override name = 'ModelPackageError' as const;
  declare readonly code: ModelPackageCode;

  constructor(code: ModelPackageCode, message: string, options?: EdgesegErrorOptions) {
    super(code, message, options);
  }
}

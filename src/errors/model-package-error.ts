// A model package is missing a file, is malformed, or describes a model edgeseg cannot run.
import type { ModelPackageCode } from './codes.js';
import { EdgesegError, type EdgesegErrorOptions } from './edgeseg-error.js';

/**
 * A model package is missing a file, is malformed, could not be downloaded, or describes a model that edgeseg
 * cannot run (its input or output shape, too many classes). The message names the file and what is wrong.
 */
export class ModelPackageError extends EdgesegError {
  /** `'ModelPackageError'`, in every realm. */
  override name = 'ModelPackageError' as const;
  /** What is wrong with the package. */
  declare readonly code: ModelPackageCode;

  /**
   * @param code - What is wrong with the package.
   * @param message - For people: the file and what is wrong with it.
   * @param options - The cause.
   */
  constructor(code: ModelPackageCode, message: string, options?: EdgesegErrorOptions) {
    super(code, message, options);
  }
}

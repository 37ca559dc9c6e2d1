// 404: the workspace, project, version or image does not exist.
import { PlatformError, type PlatformErrorOptions } from './platform-error.js';

/**
 * 404: the workspace, project, version or image does not exist (or the route does not).
 */
export class NotFoundError extends PlatformError {
  /** `'NotFoundError'`, in every realm. */
  override name = 'NotFoundError' as const;
  /** Always `NOT_FOUND`. */
  declare readonly code: 'NOT_FOUND';

  /**
   * @param message - For people; any API key in it is masked.
   * @param options - The request, and the answer where there was one.
   */
  constructor(message: string, options?: PlatformErrorOptions) {
    super('NOT_FOUND', message, options);
  }
}

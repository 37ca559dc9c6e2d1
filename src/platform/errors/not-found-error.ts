// 404: the workspace, project, version or image does not exist.
import { PlatformError, type PlatformErrorOptions } from './platform-error.js';

export class NotFoundError extends PlatformError {
  override name = 'NotFoundError' as const;
  declare readonly code: 'NOT_FOUND';

  constructor(message: string, options?: PlatformErrorOptions) {
    super('NOT_FOUND', message, options);
  }
}

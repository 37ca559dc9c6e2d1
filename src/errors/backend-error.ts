// A backend could not start or failed while running; `backend` says which one.
import type { BackendCode } from './codes.js';
import { EdgesegError, type EdgesegErrorOptions } from './edgeseg-error.js';

export type BackendName = 'webgpu' | 'wasm' | 'hosted' | 'native';

export class BackendError extends EdgesegError {
  override name = 'BackendError' as const;
  declare readonly code: BackendCode;
  readonly backend: BackendName | undefined;

  constructor(code: BackendCode, message: string, options: EdgesegErrorOptions & { backend?: BackendName } = {}) {
    super(code, message, options);
    this.backend = options.backend;
  }

  override toJSON(): { name: string; code: string; message: string; backend?: BackendName } {
    return this.backend === undefined ? super.toJSON() : { ...super.toJSON(), backend: this.backend };
  }
}

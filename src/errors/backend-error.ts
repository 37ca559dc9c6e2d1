// A backend could not start or failed while running; `backend` says which one.
import type { BackendCode } from './codes.js';
import { EdgesegError, type EdgesegErrorOptions } from './edgeseg-error.js';

/**
 * Every backend edgeseg has: `webgpu` and `wasm` (onnxruntime-web, in the browser's worker; `wasm` also in
 * Node), `hosted` (the platform's hosted route, in the browser) and `native` (onnxruntime-node).
 */
export type BackendName = 'webgpu' | 'wasm' | 'hosted' | 'native';

/**
 * A backend could not start here, failed while running, or its runtime files are not served as shipped;
 * or the worker died, or the segmenter was disposed. `backend` names the backend where one is at fault.
 */
export class BackendError extends EdgesegError {
  /** `'BackendError'`, in every realm. */
  override name = 'BackendError' as const;
  /** What happened to the backend. */
  declare readonly code: BackendCode;
  /** The backend at fault; undefined where the error is not one backend's (`NO_BACKEND`, for one). */
  readonly backend: BackendName | undefined;

  /**
   * @param code - What happened to the backend.
   * @param message - For people: why, and the fix where there is one.
   * @param options - The cause, and the backend at fault.
   */
  constructor(code: BackendCode, message: string, options: EdgesegErrorOptions & { backend?: BackendName } = {}) {
    super(code, message, options);
    this.backend = options.backend;
  }

  /** `{ name, code, message }`, and `backend` where one is at fault. */
  override toJSON(): {
    /** `'BackendError'`. */
    name: string;
    /** The stable code. */
    code: string;
    /** The message. */
    message: string;
    /** The backend at fault, where one is. */
    backend?: BackendName;
  } {
    return this.backend === undefined ? super.toJSON() : { ...super.toJSON(), backend: this.backend };
  }
}

// The base class of every runtime and model error that edgeseg throws.
import type { EdgesegErrorCode } from './codes.js';

/** What an {@link EdgesegError} carries beside its code and message. */
export interface EdgesegErrorOptions {
  /** What caused it, as `Error.cause`. */
  cause?: unknown;
}

/**
 * Every runtime and model error of edgeseg. Branch on `code` (stable) or on the subclass; the message is
 * for people and may change. `name` is a string literal on every subclass so that `isEdgesegError` works
 * across realms (a worker, an iframe) where `instanceof` does not.
 */
export class EdgesegError extends Error {
  /** The class's name (each subclass sets its own), which {@link isEdgesegError} reads across realms. */
  override name: string = 'EdgesegError';
  /** What went wrong, as a stable string to branch on. */
  readonly code: EdgesegErrorCode;

  /**
   * @param code - The stable code.
   * @param message - For people: what went wrong and, where there is one, the fix.
   * @param options - The cause.
   */
  constructor(code: EdgesegErrorCode, message: string, options: EdgesegErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }

  /** The error as `JSON.stringify` writes it (an `Error`'s own fields are not enumerable): a log line's or another process's view. */
  toJSON(): {
    /** The class's name. */
    name: string;
    /** The stable code. */
    code: string;
    /** The message. */
    message: string;
  } {
    return { name: this.name, code: this.code, message: this.message };
  }
}

const EDGESEG_ERROR_NAMES = new Set(['EdgesegError', 'InvalidInputError', 'ModelPackageError', 'BackendError', 'EdgesegAbortError']);

/** True for any edgeseg runtime or model error, also one made in another realm. */
export function isEdgesegError(value: unknown): value is EdgesegError {
  return (
    value instanceof EdgesegError ||
    (typeof value === 'object' &&
      value !== null &&
      EDGESEG_ERROR_NAMES.has((value as { name?: unknown }).name as string) &&
      typeof (value as { code?: unknown }).code === 'string')
  );
}

// A call was aborted through its AbortSignal. `name` stays distinct from DOMException's 'AbortError'
// so that callers can tell edgeseg's abort from a raw fetch abort, yet `code` is the stable 'ABORTED'.
import { EdgesegError, type EdgesegErrorOptions } from './edgeseg-error.js';

export class EdgesegAbortError extends EdgesegError {
  override name = 'EdgesegAbortError' as const;
  declare readonly code: 'ABORTED';

  constructor(message = 'The operation was aborted.', options?: EdgesegErrorOptions) {
    super('ABORTED', message, options);
  }
}

/** Throws the signal's abort as an EdgesegAbortError if it has been aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new EdgesegAbortError(undefined, { cause: signal.reason });
}

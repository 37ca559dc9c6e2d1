// A call was aborted through its AbortSignal: the one abort error of every area (segmenters, batches,
// downloads, the platform clients). `name` stays distinct from DOMException's 'AbortError' so that callers
// can tell edgeseg's abort from a raw fetch abort, yet `code` is the stable 'ABORTED'.
import { EdgesegError, type EdgesegErrorOptions } from './edgeseg-error.js';

/** What an {@link EdgesegAbortError} says beside its message: its cause, and the platform request it stopped. */
export interface EdgesegAbortErrorOptions extends EdgesegErrorOptions {
  /** The HTTP method of the platform request that the abort stopped, when it stopped one. */
  method?: string;
  /** The URL of the platform request that the abort stopped, its API key masked, when it stopped one. */
  url?: string;
}

/**
 * A call was aborted through the `signal` its caller passed: a segmenter's call, a `segmentMany` batch, a
 * model download, or a request of the platform clients. Every abort of edgeseg is this class, with code
 * `ABORTED`; the signal's `reason` is its `cause`. (`AbortedError`, the platform clients' former abort
 * error, is this class under a deprecated name.)
 *
 * @example
 * ```ts
 * try {
 *   await segmenter.segment(image, { signal });
 * } catch (error) {
 *   if (error instanceof EdgesegAbortError) return; // the caller stopped it
 *   throw error;
 * }
 * ```
 */
export class EdgesegAbortError extends EdgesegError {
  /** The class's name, also in other realms (a worker, an iframe), where `instanceof` does not reach. */
  override name = 'EdgesegAbortError' as const;
  /** Always `ABORTED`. */
  declare readonly code: 'ABORTED';
  /** The HTTP method of the platform request that the abort stopped; undefined for other calls. */
  readonly method: string | undefined;
  /** The URL of the platform request that the abort stopped, its API key masked; undefined for other calls. */
  readonly url: string | undefined;

  /**
   * @param message - For people; defaults to "The operation was aborted.".
   * @param options - The abort's cause (the signal's reason) and the platform request it stopped.
   */
  constructor(message = 'The operation was aborted.', options: EdgesegAbortErrorOptions = {}) {
    super('ABORTED', message, options);
    this.method = options.method;
    this.url = options.url;
  }

  /** `{ name, code, message }`, and the request's `method` and `url` where the abort stopped one. */
  override toJSON(): {
    /** `'EdgesegAbortError'`. */
    name: string;
    /** `'ABORTED'`. */
    code: string;
    /** The message. */
    message: string;
    /** The stopped request's method, where the abort stopped one. */
    method?: string;
    /** The stopped request's URL, key masked, where the abort stopped one. */
    url?: string;
  } {
    return {
      ...super.toJSON(),
      ...(this.method === undefined ? {} : { method: this.method }),
      ...(this.url === undefined ? {} : { url: this.url }),
    };
  }
}

/** Throws the signal's abort as an EdgesegAbortError if it has been aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new EdgesegAbortError(undefined, { cause: signal.reason });
}

// The platform clients' former abort error: every abort, a platform request's included, is EdgesegAbortError.
import { EdgesegAbortError } from '../../errors/edgeseg-abort-error.js';

/**
 * The abort error under the name the platform clients gave it before every abort became one class.
 *
 * @deprecated Use {@link EdgesegAbortError}: `AbortedError` is the same class (`instanceof` and `code`
 * `ABORTED` hold either way), and the name goes in the next release.
 */
export const AbortedError = EdgesegAbortError;

/**
 * The abort error's type under the platform clients' former name.
 *
 * @deprecated Use {@link EdgesegAbortError}, the same class; the name goes in the next release.
 */
export type AbortedError = EdgesegAbortError;

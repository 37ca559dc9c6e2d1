// Runtime and model errors of edgeseg: one base class, a subclass per area callers branch on.
export type { EdgesegErrorCode, InvalidInputCode, ModelPackageCode, BackendCode, AbortedCode, LocalPlatformCode } from './codes.js';
export { EdgesegError, isEdgesegError, type EdgesegErrorOptions } from './edgeseg-error.js';
export { InvalidInputError } from './invalid-input-error.js';
export { ModelPackageError } from './model-package-error.js';
export { BackendError, type BackendName } from './backend-error.js';
export { EdgesegAbortError, throwIfAborted, type EdgesegAbortErrorOptions } from './edgeseg-abort-error.js';

// Errors cross the worker boundary with their class and `code`: a registry of the library's error
// classes, and a comlink transfer handler that uses it in place of comlink's plain-Error one.
import { transferHandlers, type TransferHandler } from 'comlink';
import { BackendError, EdgesegAbortError, EdgesegError, InvalidInputError, ModelPackageError } from '../errors/index.js';
import {
  AuthenticationError,
  ConnectionError,
  InvalidRequestError,
  InvalidResponseError,
  NotFoundError,
  PaymentRequiredError,
  PlatformError,
  RateLimitError,
  ServerError,
  TimeoutError,
} from '../platform/errors/index.js';

/** An error as it travels in a message: its class name, code, message and the fields its class carries. */
export interface SerializedError {
  name: string;
  message: string;
  code?: string;
  stack?: string;
  fields?: Record<string, unknown>;
}

type Rebuild = (s: SerializedError) => Error;
const f = (s: SerializedError) => s.fields ?? {};
const REGISTRY: Record<string, Rebuild> = {
  EdgesegError: (s) => new EdgesegError(s.code as never, s.message),
  InvalidInputError: (s) => new InvalidInputError(s.code as never, s.message),
  ModelPackageError: (s) => new ModelPackageError(s.code as never, s.message),
  BackendError: (s) => new BackendError(s.code as never, s.message, f(s).backend ? { backend: f(s).backend as never } : {}),
  EdgesegAbortError: (s) => new EdgesegAbortError(s.message, f(s)),
  PlatformError: (s) => new PlatformError(s.code as never, s.message, f(s)),
  AuthenticationError: (s) => new AuthenticationError(s.message, f(s)),
  NotFoundError: (s) => new NotFoundError(s.message, f(s)),
  InvalidRequestError: (s) => new InvalidRequestError(s.message, f(s)),
  PaymentRequiredError: (s) => new PaymentRequiredError(s.message, f(s)),
  RateLimitError: (s) => new RateLimitError(s.message, f(s)),
  ServerError: (s) => new ServerError(s.message, f(s)),
  ConnectionError: (s) => new ConnectionError(s.message, f(s)),
  TimeoutError: (s) => new TimeoutError(s.message, f(s)),
  InvalidResponseError: (s) => new InvalidResponseError(s.message, f(s)),
};
const FIELDS = ['backend', 'status', 'method', 'url', 'type', 'hint', 'retryAfter'] as const;

export function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const fields: Record<string, unknown> = {};
  for (const k of FIELDS) {
    const v = (error as unknown as Record<string, unknown>)[k];
    if (v !== undefined && (typeof v === 'string' || typeof v === 'number')) fields[k] = v;
  }
  const code = (error as { code?: unknown }).code;
  return {
    name: error.name,
    message: error.message,
    ...(typeof code === 'string' ? { code } : {}),
    ...(error.stack ? { stack: error.stack } : {}),
    ...(Object.keys(fields).length ? { fields } : {}),
  };
}

/** The error rebuilt as its own class where the library knows it; a plain Error with `name` otherwise. */
export function deserializeError(s: SerializedError): Error {
  const rebuild = REGISTRY[s.name];
  const error = rebuild ? rebuild(s) : Object.assign(new Error(s.message), { name: s.name });
  if (s.stack) error.stack = s.stack;
  return error;
}

let installed = false;

/** Installs the handler in this realm (main thread and worker each call it once). */
export function installErrorTransfer(): void {
  if (installed) return;
  installed = true;
  const original = transferHandlers.get('throw')!;
  const handler: TransferHandler<{ value: unknown }, SerializedError> = {
    // Called on comlink's own handler, so that it keeps its `this`.
    canHandle: (v): v is { value: unknown } => original.canHandle(v),
    serialize: ({ value }) => [serializeError(value), []],
    deserialize: (s) => {
      throw deserializeError(s);
    },
  };
  transferHandlers.set('throw', handler);
}

// What a promise rejects with or a call throws, typed for the assertions tests make on an error (class, code, message).

/** An error as the package's error classes carry it: a `code`, and a `status` for platform answers. */
export type Rejection = Error & { code?: unknown; status?: unknown };

/**
 * The Error that `promise` rejects with, of class `kind` when given; throws, failing the test, if it
 * resolves or rejects with anything else.
 */
export async function rejection<E extends Error = Rejection>(
  promise: Promise<unknown>,
  kind?: abstract new (...args: never[]) => E,
): Promise<E> {
  let value: unknown;
  try {
    value = await promise;
  } catch (error) {
    if (kind ? error instanceof kind : error instanceof Error) return error as E;
    const got = error instanceof Error ? error.name : typeof error;
    throw new Error(`expected ${kind ? kind.name : 'an Error'}, the promise rejected with ${got}`, { cause: error });
  }
  throw new Error(`expected a rejection, the promise resolved with ${typeof value}`);
}

/** The Error that `f` throws; throws, failing the test, if it returns or throws anything else. */
export function thrown(f: () => unknown): Rejection {
  try {
    f();
  } catch (error) {
    if (error instanceof Error) return error;
    throw new Error(`expected an Error, the call threw ${typeof error}`, { cause: error });
  }
  throw new Error('expected the call to throw, it returned');
}

/** The `code` of the error that `promise` rejects with. */
export async function codeOf(promise: Promise<unknown>): Promise<unknown> {
  return (await rejection(promise)).code;
}

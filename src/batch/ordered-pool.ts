// Runs an async function over a stream of items, a bounded number at a time, yielding the results in the items' order.
import { EdgesegAbortError, throwIfAborted } from '../errors/index.js';
import { Ending } from '../runtime/ending.js';

export interface OrderedPoolOptions {
  /** Items started and not yet taken by the consumer, at most. An integer ≥ 1. */
  concurrency: number;
  signal?: AbortSignal;
}

/**
 * `fn` over `items`, results in the items' order. A result that is ready before the ones ahead of it waits
 * for them and keeps its slot, so one slow item holds back new work instead of letting finished results
 * pile up: at most `concurrency` items are in flight or waiting, whatever the speeds. A slot is freed when
 * the consumer asks for the next result, not when a result is handed over, so nothing new starts while the
 * consumer works on a result. Items are pulled from `items` only when a slot is free.
 *
 * `fn` gets a signal that aborts when the caller's does or when the consumer stops early (break, throw);
 * the iterator then waits for the items in flight to settle, so nothing of it runs after it has finished.
 * An abort through `signal` ends the iteration with an `EdgesegAbortError`; a rejection of `fn` ends it
 * with that error.
 */
export async function* orderedPool<T, R>(
  items: Iterable<T> | AsyncIterable<T>,
  fn: (item: T, index: number, signal: AbortSignal) => Promise<R>,
  options: OrderedPoolOptions,
): AsyncGenerator<R, void, undefined> {
  const { concurrency, signal } = options;
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const iterator: Iterator<T> | AsyncIterator<T> = Symbol.asyncIterator in items ? items[Symbol.asyncIterator]() : items[Symbol.iterator]();
  const window: Promise<R>[] = [];
  let exhausted = false;
  let index = 0;
  // One listener for the whole run, and each wait let go once it settles: a listener, or a reaction on a
  // promise that never settles, per item would pile up over a long batch.
  const stopped = new Ending<EdgesegAbortError>();
  const onStop = () => stopped.end(new EdgesegAbortError(undefined, { cause: stop.signal.reason }));
  stop.signal.addEventListener('abort', onStop, { once: true });
  try {
    for (;;) {
      throwIfAborted(signal);
      while (!exhausted && window.length < concurrency) {
        const next = await iterator.next();
        if (next.done) {
          exhausted = true;
          break;
        }
        const pending = fn(next.value, index++, stop.signal);
        // Settled later, in order; until then a rejection must not count as unhandled.
        pending.catch(() => undefined);
        window.push(pending);
      }
      const head = window[0];
      if (head === undefined) return;
      const result = await stopped.guard(head);
      throwIfAborted(signal);
      // The head, already settled and awaited above.
      void window.shift();
      yield result;
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    stop.abort(new EdgesegAbortError('the consumer stopped'));
    await Promise.allSettled(window);
    if (!exhausted) await iterator.return?.();
  }
}

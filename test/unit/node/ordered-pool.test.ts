import { describe, expect, test } from 'vitest';
import { EdgesegAbortError } from '../../../src/errors/index.js';
import { orderedPool } from '../../../src/batch/ordered-pool.js';
import { codeOf, rejection } from '../../helpers/rejection.js';

/** A promise the test settles by hand, so the order of completion is the test's, not the clock's. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const tick = () => new Promise((r) => setImmediate(r));

/** Items 0…n-1, each finished when the test says; records what was pulled and started, and the signals given. */
function harness(n: number) {
  const gates = Array.from({ length: n }, () => deferred<string>());
  const started: number[] = [];
  const signals: AbortSignal[] = [];
  let pulled = 0;
  let returned = false;
  const items = {
    *[Symbol.iterator]() {
      try {
        for (let i = 0; i < n; i++) {
          pulled++;
          yield i;
        }
      } finally {
        returned = true;
      }
    },
  };
  const fn = (item: number, index: number, signal: AbortSignal) => {
    expect(index).toBe(item);
    started.push(item);
    signals.push(signal);
    // Work that stops when told to, as the segmenter's does.
    const stopped = new Promise<never>((_, reject) =>
      signal.addEventListener('abort', () => reject(new EdgesegAbortError(undefined, { cause: signal.reason })), { once: true }),
    );
    return Promise.race([gates[item]!.promise, stopped]);
  };
  return { gates, started, signals, items, fn, pulled: () => pulled, returned: () => returned };
}

describe('orderedPool', () => {
  test('yields in the order of the items whatever order they finish in', async () => {
    const h = harness(5);
    const it = orderedPool(h.items, h.fn, { concurrency: 3 });
    const first = it.next();
    await tick();
    expect(h.started).toEqual([0, 1, 2]);
    h.gates[2]!.resolve('c');
    h.gates[1]!.resolve('b');
    await tick();
    h.gates[0]!.resolve('a');
    expect(await first).toEqual({ value: 'a', done: false });
    // Two finished results are waiting: they keep their slots, so only one new item starts.
    expect(await it.next()).toEqual({ value: 'b', done: false });
    expect(h.started).toEqual([0, 1, 2, 3]);
    expect(await it.next()).toEqual({ value: 'c', done: false });
    await tick();
    expect(h.started).toEqual([0, 1, 2, 3, 4]);
    h.gates[4]!.resolve('e');
    h.gates[3]!.resolve('d');
    expect(await it.next()).toEqual({ value: 'd', done: false });
    expect(await it.next()).toEqual({ value: 'e', done: false });
    expect((await it.next()).done).toBe(true);
  });

  test('pulls items only as slots free up, and frees a slot only when the consumer asks for more', async () => {
    const h = harness(10);
    const it = orderedPool(h.items, h.fn, { concurrency: 2 });
    const first = it.next();
    await tick();
    expect([h.pulled(), h.started.length]).toEqual([2, 2]);
    h.gates[0]!.resolve('a');
    expect((await first).value).toBe('a');
    // The consumer holds result 0 and has not asked again: nothing new starts.
    await tick();
    expect([h.pulled(), h.started.length]).toEqual([2, 2]);
    const second = it.next();
    await tick();
    expect([h.pulled(), h.started]).toEqual([3, [0, 1, 2]]);
    h.gates[1]!.resolve('b');
    expect((await second).value).toBe('b');
  });

  test('an abort ends the iteration with EdgesegAbortError, aborts the work in flight and waits for it', async () => {
    const h = harness(6);
    const controller = new AbortController();
    const it = orderedPool(h.items, h.fn, { concurrency: 2, signal: controller.signal });
    const first = it.next();
    await tick();
    controller.abort();
    const error = await rejection(first);
    expect(error).toBeInstanceOf(EdgesegAbortError);
    expect(error.code).toBe('ABORTED');
    expect(h.signals.every((s) => s.aborted)).toBe(true);
    expect(h.returned()).toBe(true);
    expect(h.started).toEqual([0, 1]);
    expect((await it.next()).done).toBe(true);
  });

  test('an already aborted signal starts nothing', async () => {
    const h = harness(3);
    const it = orderedPool(h.items, h.fn, { concurrency: 2, signal: AbortSignal.abort() });
    expect(await codeOf(it.next())).toBe('ABORTED');
    expect(h.started).toEqual([]);
  });

  test('breaking out of the loop aborts what is in flight and closes the items', async () => {
    const h = harness(6);
    h.gates.forEach((g, i) => i !== 1 && g.resolve(String(i)));
    for await (const value of orderedPool(h.items, h.fn, { concurrency: 3 })) {
      expect(value).toBe('0');
      h.gates[1]!.resolve('1');
      break;
    }
    expect(h.signals.map((s) => s.aborted)).toEqual([true, true, true]);
    expect(h.returned()).toBe(true);
  });

  test('a rejection of fn ends the iteration with that error', async () => {
    const h = harness(3);
    h.gates[0]!.reject(new Error('boom'));
    h.gates[1]!.resolve('b');
    const seen: string[] = [];
    const error = await rejection(
      (async () => {
        for await (const v of orderedPool(h.items, h.fn, { concurrency: 2 })) seen.push(v);
      })(),
    );
    expect(error.message).toBe('boom');
    expect(seen).toEqual([]);
    expect(h.signals[1]!.aborted).toBe(true);
  });

  test('reads an async iterable lazily too', async () => {
    let pulled = 0;
    async function* source() {
      for (let i = 0; ; i++) {
        pulled++;
        // Each item a tick later, as from a directory listing or a network stream.
        await Promise.resolve();
        yield i;
      }
    }
    const out: number[] = [];
    for await (const v of orderedPool(source(), (x) => Promise.resolve(x * 10), { concurrency: 3 })) {
      out.push(v);
      if (out.length === 4) break;
    }
    expect(out).toEqual([0, 10, 20, 30]);
    // Four taken, two more in slots when the consumer stopped: an endless source read no further.
    expect(pulled).toBeLessThanOrEqual(6);
  });
});

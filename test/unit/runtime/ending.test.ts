// Ending: a call raced against a worker's end settles as the call does, or rejects when the end comes
// first, and leaves nothing waiting on the end once it has settled (Promise.race against a promise that
// never settles would keep one reaction per call).
import { describe, expect, test } from 'vitest';
import { Ending } from '../../../src/runtime/ending.js';

describe('Ending', () => {
  test('a guarded call settles as the call does, and nothing is left waiting', async () => {
    const ending = new Ending();
    const calls = Array.from({ length: 1000 }, (_, i) => ending.guard(i % 2 ? Promise.resolve(i) : Promise.reject(new Error(`no ${i}`))));
    expect(ending.waiting).toBe(1000);
    const settled = await Promise.allSettled(calls);
    expect(settled[1]).toEqual({ status: 'fulfilled', value: 1 });
    expect(settled[2]).toMatchObject({ status: 'rejected', reason: { message: 'no 2' } });
    expect(ending.waiting).toBe(0);
  });

  test('the end rejects every call still waiting, with its reason, once; later calls reject at once', async () => {
    const ending = new Ending();
    const never = new Promise<number>(() => undefined);
    const waiting = [ending.guard(never), ending.guard(never)];
    const reason = new Error('the worker died');
    ending.end(reason);
    ending.end(new Error('a second end is ignored'));
    await expect(Promise.all(waiting)).rejects.toBe(reason);
    await expect(ending.guard(Promise.resolve(1))).rejects.toBe(reason);
    expect([ending.reason, ending.waiting]).toEqual([reason, 0]);
  });

  test('a call that settled first is not changed by a later end', async () => {
    const ending = new Ending();
    const done = ending.guard(Promise.resolve('answer'));
    await expect(done).resolves.toBe('answer');
    ending.end(new Error('later'));
    await expect(done).resolves.toBe('answer');
  });
});

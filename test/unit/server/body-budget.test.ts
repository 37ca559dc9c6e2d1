// The budget for request bodies in flight: per key and in total, given back once, and the 503 it refuses with.
import { expect, test } from 'vitest';
import { BodyBudget } from '../../../server/body-budget.js';
import type { HttpError } from '../../../server/http.js';

const budget = () => new BodyBudget({ maxBodyBytesPerKey: 100, maxBodyBytesInFlight: 150, retryAfterS: 7 });
const refusal = (grow: () => void) => {
  try {
    grow();
  } catch (error) {
    const { status, type, message, retryAfterS } = error as HttpError;
    return { status, type, message, retryAfterS };
  }
  throw new Error('not refused');
};

test('a hold grows to the bytes it is given (never down), within the key budget and the total', () => {
  const b = budget();
  const a1 = b.hold('a');
  a1.grow(60);
  a1.grow(40);
  expect(b.held).toEqual({ bytes: 60, peak: 60, keys: 1 });
  const a2 = b.hold('a');
  expect(refusal(() => a2.grow(41))).toEqual({
    status: 503,
    type: 'ServerBusy',
    message: "this key's requests hold 0.0 MB of request bodies, and may hold 0.0 MB at once",
    retryAfterS: 7,
  });
  a2.grow(40);
  // Another key has its own budget, but not past the total.
  const c = b.hold('c');
  c.grow(50);
  expect(refusal(() => c.grow(51)).message).toBe('the server holds 0.0 MB of request bodies, and takes 0.0 MB at once');
  expect(b.held).toEqual({ bytes: 150, peak: 150, keys: 2 });
  // A refused grow takes nothing; a release gives back all of a hold, once.
  a1.release();
  a1.release();
  expect(b.held).toEqual({ bytes: 90, peak: 150, keys: 2 });
  a2.release();
  c.release();
  expect(b.held).toEqual({ bytes: 0, peak: 150, keys: 0 });
  b.hold('a').grow(100);
  expect(b.held.bytes).toBe(100);
});

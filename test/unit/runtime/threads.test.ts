// The browser's WASM thread rule (src/runtime/threads.ts): the default for the cores and the use, the
// caller's count, one thread where the page cannot run more (with the note that says why), and the check.
import { describe, expect, test } from 'vitest';
import { InvalidInputError } from '../../../src/errors/index.js';
import { checkNumThreads, defaultThreads, planThreads, type ThreadInputs } from '../../../src/runtime/threads.js';
import { stringMatching } from '../../helpers/matchers.js';
import { thrown } from '../../helpers/rejection.js';

const isolated: ThreadInputs = { isolated: true, sharedMemory: true, cores: 2, requested: undefined, local: true, use: 'stills' };
const plan = (inputs: Partial<ThreadInputs>) => planThreads({ ...isolated, ...inputs });

describe('defaultThreads', () => {
  test('stills: half the cores, at least 1, at most 4', () => {
    expect([1, 2, 3, 4, 6, 8, 16, 64].map((cores) => defaultThreads(cores, 'stills'))).toEqual([1, 1, 1, 2, 3, 4, 4, 4]);
  });

  test("video: one fewer, for the frame loop's worker; at least 1, at most 4", () => {
    expect([1, 2, 3, 4, 5, 6, 8, 10, 16].map((cores) => defaultThreads(cores, 'video'))).toEqual([1, 1, 1, 1, 1, 2, 3, 4, 4]);
  });

  test('a browser that tells no cores, or nonsense, counts as 2 cores', () => {
    for (const cores of [undefined, 0, -4, 2.5, Number.NaN]) {
      expect([defaultThreads(cores, 'stills'), defaultThreads(cores, 'video')]).toEqual([1, 1]);
    }
  });
});

describe('planThreads', () => {
  test('the default, with the cores it read and why', () => {
    expect(plan({ cores: 2 })).toEqual({
      oneThread: null,
      choice: { numThreads: 1, cores: 2, source: 'default', reason: '2 cores: 1 WASM thread (half the cores, at least 1, at most 4)' },
    });
    expect(plan({ cores: 8, use: 'video' }).choice).toEqual({
      numThreads: 3,
      cores: 8,
      source: 'default',
      reason: "8 cores: 3 WASM threads for the model (half the cores less one for the frame loop's worker; at least 1, at most 4)",
    });
    expect(plan({ cores: 16 }).choice.reason).toBe('16 cores: 4 WASM threads (half the cores, at least 1, at most 4)');
    expect(plan({ cores: undefined }).choice).toEqual({
      numThreads: 1,
      cores: null,
      source: 'default',
      reason: 'the browser does not tell its cores (taken as 2): 1 WASM thread (half the cores, at least 1, at most 4)',
    });
  });

  test("the caller's count stands where threads can run, whatever the cores and the use", () => {
    expect(plan({ cores: 2, requested: 3, use: 'video' })).toEqual({
      oneThread: null,
      choice: { numThreads: 3, cores: 2, source: 'option', reason: 'numThreads: 3, as given' },
    });
    // One thread always runs: nothing to explain on a page that is not isolated.
    expect(plan({ isolated: false, cores: 16, requested: 1 })).toEqual({
      oneThread: null,
      choice: { numThreads: 1, cores: 16, source: 'option', reason: 'numThreads: 1, as given' },
    });
  });

  test('a page that is not cross-origin isolated runs one thread, asked or not, and says why', () => {
    for (const requested of [undefined, 3]) {
      const p = plan({ isolated: false, cores: 16, requested });
      expect(p).toEqual({
        oneThread: { code: 'NOT_ISOLATED', message: stringMatching(/not cross-origin isolated.*one thread/) },
        choice: { numThreads: 1, cores: 16, source: 'one-thread', reason: p.oneThread!.message },
      });
    }
  });

  test('isolated, but no SharedArrayBuffer (WebKitGTK): one thread, and the note says so', () => {
    const p = plan({ sharedMemory: false, cores: 16, requested: 2 });
    expect(p).toEqual({
      oneThread: { code: 'NO_SHARED_MEMORY', message: stringMatching(/no SharedArrayBuffer.*one thread/) },
      choice: { numThreads: 1, cores: 16, source: 'one-thread', reason: p.oneThread!.message },
    });
  });

  test('only the hosted route: no note, threads do not matter, isolated or not, asked or not', () => {
    for (const inputs of [{ isolated: false }, { isolated: true }, { isolated: true, requested: 3 }])
      expect(plan({ ...inputs, cores: 16, local: false })).toEqual({
        oneThread: null,
        choice: { numThreads: 1, cores: 16, source: 'default', reason: 'only the hosted route runs the model: no WASM threads' },
      });
  });
});

describe('checkNumThreads', () => {
  test('whole numbers from 1 to 64 pass, and leaving it out', () => {
    for (const n of [undefined, 1, 2, 17, 64]) expect(() => checkNumThreads(n)).not.toThrow();
  });

  test('0, negative, fractional, past 64 or not a number: OPTION_INVALID naming the range and the value', () => {
    const cases: [unknown, string][] = [
      [0, 'got 0'],
      [-2, 'got -2'],
      [1.5, 'got 1.5'],
      [65, 'got 65'],
      [Number.NaN, 'got NaN'],
      [Number.POSITIVE_INFINITY, 'got Infinity'],
      ['2', 'got "2"'],
      [null, 'got null'],
    ];
    for (const [value, got] of cases) {
      const error = thrown(() => checkNumThreads(value));
      expect(error).toBeInstanceOf(InvalidInputError);
      expect([error.code, error.message]).toEqual([
        'OPTION_INVALID',
        `numThreads must be a whole number of WASM threads from 1 to 64, ${got}`,
      ]);
    }
  });
});

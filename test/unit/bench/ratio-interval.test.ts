// The bench's interval for a ratio of medians (bench/stats.ts ratioInterval), against what the bootstrap's
// own distribution says where it can be worked out by hand.
import { describe, expect, test } from 'vitest';
import { ratioInterval } from '../../../bench/stats.js';

describe('ratioInterval', () => {
  test('seven runs against a steady peer: the 5th and 95th percentiles are the 2nd and 6th runs over the peer', () => {
    // A resample's median is the smallest run only if 4 of its 7 draws are (p ≈ 0.010), at most the 2nd
    // smallest with p ≈ 0.108: the 5th percentile is the 2nd run, and by symmetry the 95th the 6th.
    const runs = [130, 70, 110, 90, 100, 120, 80];
    expect(ratioInterval(runs, Array<number>(7).fill(100))).toEqual({ lo: 0.8, hi: 1.2 });
  });

  test('three runs each: a median is one of three values, the outer two with p = 7/27 each', () => {
    expect(ratioInterval([90, 110, 100], [100, 100, 100])).toEqual({ lo: 0.9, hi: 1.1 });
  });

  test('runs apart from the peer give an interval that excludes 1; more runs of the same spread give a narrower one', () => {
    const spread = (n: number, centre: number) => Array.from({ length: n }, (_, i) => centre + ((i * 37) % 21) - 10);
    const apart = ratioInterval(spread(7, 1100), spread(7, 1000));
    expect(apart.lo).toBeGreaterThan(1.05);
    expect(apart.hi).toBeLessThan(1.15);
    const width = ({ lo, hi }: { lo: number; hi: number }) => hi - lo;
    expect(width(ratioInterval(spread(21, 1100), spread(21, 1000)))).toBeLessThan(width(apart));
  });

  test('the same runs give the same interval (seeded)', () => {
    const [a, b] = [
      [1032, 990, 1101, 1050, 1012],
      [1034, 991, 1060, 1003, 998],
    ];
    expect(ratioInterval(a, b)).toEqual(ratioInterval(a, b));
  });
});

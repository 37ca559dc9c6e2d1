import { describe, expect, test } from 'vitest';
import { createProgressBar, formatSeconds, progressLine } from '../../../src/cli/progress-bar.js';

describe('the batch progress bar', () => {
  test('bar, count, percent, failures, rate and time left', () => {
    expect(progressLine({ done: 0, total: 40, failed: 0, elapsedMs: 0 }, 80)).toBe(`[${'-'.repeat(30)}]  0/40 ·   0%`);
    // The text takes 56 columns here, leaving 21 for the bar.
    expect(progressLine({ done: 10, total: 40, failed: 2, elapsedMs: 5000 }, 80)).toBe(
      `[${'#'.repeat(5)}${'-'.repeat(16)}] 10/40 ·  25% · 2 failed · 2.0 images/s · about 15 s left`,
    );
    expect(progressLine({ done: 40, total: 40, failed: 0, elapsedMs: 20000 }, 80)).toBe(
      `[${'#'.repeat(30)}] 40/40 · 100% · 2.0 images/s · 20 s`,
    );
  });

  test('fits the terminal: a narrow one loses the bar first, then parts from the end', () => {
    const p = { done: 10, total: 40, failed: 2, elapsedMs: 5000 };
    expect(progressLine(p, 70)).toMatch(/^\[#{3}-{8}\] 10\/40/);
    expect(progressLine(p, 70).length).toBeLessThanOrEqual(70);
    expect(progressLine(p, 40)).toBe('10/40 ·  25% · 2 failed · 2.0 images/s');
    expect(progressLine(p, 20)).toBe('10/40 ·  25%');
  });

  test('formatSeconds', () => {
    expect([0.25, 9.94, 42, 61, 3725].map(formatSeconds)).toEqual(['0.3 s', '9.9 s', '42 s', '1 min 1 s', '1 h 2 min']);
  });

  test('redraws in place and clears itself', () => {
    let out = '';
    const bar = createProgressBar(
      (s) => (out += s),
      () => 60,
    );
    bar.clear();
    expect(out).toBe('');
    bar.update({ done: 1, total: 2, failed: 0, elapsedMs: 1000 });
    bar.clear();
    expect(out).toBe(`\r${progressLine({ done: 1, total: 2, failed: 0, elapsedMs: 1000 }, 59)}\x1b[K\r\x1b[K`);
  });
});

// Medians and spread of timing samples, and the table formatting the bench reports use.
import { seededRandom } from '../test/helpers/seeded-random.js';

export interface Summary {
  median: number;
  p10: number;
  p90: number;
  min: number;
  max: number;
  n: number;
}

export function summarize(samples: number[]): Summary {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => quantile(s, q);
  return { median: at(0.5), p10: at(0.1), p90: at(0.9), min: s[0]!, max: s[s.length - 1]!, n: s.length };
}

/** The `q` quantile of samples sorted in ascending order, interpolated between the two nearest. */
function quantile(sorted: number[], q: number): number {
  const i = (sorted.length - 1) * q;
  const lo = Math.floor(i);
  return sorted[lo]! + (sorted[Math.min(lo + 1, sorted.length - 1)]! - sorted[lo]!) * (i - lo);
}

/**
 * How sure a ratio of two medians is, from their samples: the 5th and 95th percentiles of the ratio over
 * `resamples` bootstrap draws (each side's samples drawn again with replacement, seeded, so that a report
 * is the same for the same samples). A ratio whose interval holds the target says the runs cannot tell
 * which side of it the truth is on; more runs narrow it.
 */
export function ratioInterval(a: number[], b: number[], resamples = 4000): { lo: number; hi: number } {
  const random = seededRandom(0x5eed);
  const median = (s: number[]) => summarize(s).median;
  const draw = (s: number[]) => s.map(() => s[Math.floor(random() * s.length)]!);
  const ratios = Array.from({ length: resamples }, () => median(draw(a)) / median(draw(b))).sort((x, y) => x - y);
  return { lo: quantile(ratios, 0.05), hi: quantile(ratios, 0.95) };
}

export const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
export const spread = (s: Summary) => `${ms(s.median)} (${ms(s.p10)}–${ms(s.p90)})`;

export function table(header: string[], rows: (string | number)[][]): string {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const r of rows) lines.push(`| ${r.join(' | ')} |`);
  return lines.join('\n');
}

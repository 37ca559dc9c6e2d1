// Medians and spread of timing samples, and the table formatting the bench reports use.
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
  const at = (q: number) => {
    const i = (s.length - 1) * q;
    const lo = Math.floor(i);
    return s[lo]! + (s[Math.min(lo + 1, s.length - 1)]! - s[lo]!) * (i - lo);
  };
  return { median: at(0.5), p10: at(0.1), p90: at(0.9), min: s[0]!, max: s[s.length - 1]!, n: s.length };
}

export const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
export const spread = (s: Summary) => `${ms(s.median)} (${ms(s.p10)}–${ms(s.p90)})`;

export function table(header: string[], rows: (string | number)[][]): string {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const r of rows) lines.push(`| ${r.join(' | ')} |`);
  return lines.join('\n');
}

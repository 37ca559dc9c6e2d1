// Logits → the subject's probability per cell of the network's output (every class but the background),
// with the reference's class ids beside it: what the live video and a still's soft alpha are made from.
import { classIdMapping } from './class-ids-from-logits.js';
import type { Logits } from './types.js';

/** The subject at the network's output resolution: probability 0–255 and class ids, one per grid cell. */
export interface SubjectGrid {
  probability: Uint8Array;
  classIds: Uint8Array;
  width: number;
  height: number;
}

/**
 * Logits `[C, h, w]` → the subject's probability (every class but the background) and the class ids,
 * per logit cell. The ids follow the reference's rule (argmax, background below `confidence / 100`); the
 * probability is 1 − p(background) (softmax), σ(logit) for a one-channel model, and, for a model with no
 * background channel, the top class's probability; a cell below the confidence has probability 0.
 */
export function subjectGrid(
  logits: Logits,
  classCount: number,
  backgroundClassId: number,
  confidence: number,
  out?: SubjectGrid,
): SubjectGrid {
  const { channels: C, width, height, data } = logits;
  const n = width * height;
  const grid = out && out.probability.length === n ? out : { probability: new Uint8Array(n), classIds: new Uint8Array(n), width, height };
  const classOf = classIdMapping(C, classCount, backgroundClassId);
  const threshold = confidence / 100;
  let bgChannel = -1;
  for (let c = 0; c < C; c++) if (classOf[c] === backgroundClassId && C > 1 && C === classCount) bgChannel = c;
  const { probability, classIds } = grid;
  if (C === 1 && threshold >= SIGMOID_STEPS.guard && threshold <= 1 - SIGMOID_STEPS.guard) {
    // The reference's binary rule: the foreground class where σ ≥ the threshold. Both the byte and the
    // class are steps of the logit: compared with the steps' logits, with σ computed only next to one.
    const subjectId = classOf[0]!;
    const { base, edge, guard, range, scale } = sigmoidSteps();
    const cut = Math.log(threshold / (1 - threshold));
    for (let i = 0; i < n; i++) {
      const x = data[i]!;
      let byte: number;
      if (x > -range && x < range) {
        const b = ((x + range) * scale) | 0;
        const k = base[b]!;
        const e = edge[b]!;
        byte = k >= 0 && Math.abs(x - e) >= guard ? k + (x >= e ? 1 : 0) : Math.round((1 / (1 + Math.exp(-x))) * 255);
      } else byte = x >= range ? 255 : x <= -range ? 0 : Math.round((1 / (1 + Math.exp(-x))) * 255);
      probability[i] = byte;
      const subject = x >= cut + guard || (x > cut - guard && 1 / (1 + Math.exp(-x)) >= threshold);
      classIds[i] = subject ? subjectId : backgroundClassId;
    }
  } else if (C === 1) {
    const subjectId = classOf[0]!;
    for (let i = 0; i < n; i++) {
      const p = 1 / (1 + Math.exp(-data[i]!));
      probability[i] = Math.round(p * 255);
      classIds[i] = p >= threshold ? subjectId : backgroundClassId;
    }
  } else if (C === 2) {
    // Two channels: the softmax's exponentials are exp(0) = 1 (the top channel) and exp(low − top), the
    // same numbers the general loop below sums, from one exp.
    const [id0, id1] = [classOf[0]!, classOf[1]!];
    for (let i = 0; i < n; i++) {
      const a = data[i]!;
      const b = data[n + i]!;
      const arg = b > a ? 1 : 0;
      const hi = arg === 1 ? b : a;
      const lo = arg === 1 ? a : b;
      // exp(hi − hi): 1, or NaN where the top logit is not finite (as the general loop gets it).
      const one = 1 + (hi - hi);
      const e = Math.exp(lo - hi);
      const sum = one + e;
      const top = 1 / sum;
      let subject = bgChannel >= 0 ? 1 - (bgChannel === arg ? one : e) / sum : top;
      if (top < threshold) subject = Math.min(subject, 0.5 * (top / threshold));
      probability[i] = Math.round(subject * 255);
      classIds[i] = top >= threshold ? (arg === 1 ? id1 : id0) : backgroundClassId;
    }
  } else {
    for (let i = 0; i < n; i++) {
      let max = -Infinity;
      let arg = 0;
      for (let c = 0, j = i; c < C; c++, j += n) {
        const v = data[j]!;
        if (v > max) {
          max = v;
          arg = c;
        }
      }
      let sum = 0;
      for (let c = 0, j = i; c < C; c++, j += n) sum += Math.exp(data[j]! - max);
      const top = 1 / sum;
      let subject = bgChannel >= 0 ? 1 - Math.exp(data[bgChannel * n + i]! - max) / sum : top;
      if (top < threshold) subject = Math.min(subject, 0.5 * (top / threshold));
      probability[i] = Math.round(subject * 255);
      classIds[i] = top >= threshold ? classOf[arg]! : backgroundClassId;
    }
  }
  return grid;
}

/**
 * Math.round(255·σ(x)) as a step function of the logit x: byte k from t_k = logit((k − ½) / 255) on,
 * looked up per bucket of 1/scale in (−range, range), with at most one t_k in a bucket (they are ≥ 4/255
 * apart), `edge` that t_k (∞ if none) and `base` the byte below it (−1: a t_k lies within `guard` of the
 * bucket's ends, compute σ). Exact where it answers: the computed σ is within ~1e-15 of the true one, and
 * the true 255·σ moves at least 255·σ′(range) ≈ 0.085 per unit of x, so a logit `guard` or more from
 * every t_k is over 8e-8 from k − ½ and rounds as the table says. Past ±range the byte is 0 or 255
 * (255·σ(8) = 254.9). The same argument holds for the class threshold's logit while the threshold
 * lies in [guard, 1 − guard] (σ′ there is ≥ ~guard, so a logit `guard` away is ≥ ~1e-12 off in σ);
 * outside that, σ is computed for every cell.
 */
const SIGMOID_STEPS = { range: 8, scale: 128, guard: 1e-6 } as const;
let sigmoidTable: { base: Int16Array; edge: Float64Array; range: number; scale: number; guard: number } | undefined;

function sigmoidSteps(): NonNullable<typeof sigmoidTable> {
  if (sigmoidTable) return sigmoidTable;
  const { range, scale, guard } = SIGMOID_STEPS;
  const count = 2 * range * scale;
  const base = new Int16Array(count);
  const edge = new Float64Array(count).fill(Infinity);
  // t[k − 1] = t_k, ascending.
  const t = Float64Array.from({ length: 255 }, (_, j) => Math.log((j + 0.5) / 255 / (1 - (j + 0.5) / 255)));
  const near = (k: number, lo: number, hi: number) => k >= 0 && k < 255 && (Math.abs(t[k]! - lo) < guard || Math.abs(t[k]! - hi) < guard);
  let below = 0;
  for (let b = 0; b < count; b++) {
    const [lo, hi] = [b / scale - range, (b + 1) / scale - range];
    while (below < 255 && t[below]! < lo) below++;
    let k = below;
    while (k < 255 && t[k]! < hi) k++;
    if (k - below === 1) edge[b] = t[below]!;
    base[b] = k - below > 1 || near(below - 1, lo, hi) || near(below, lo, hi) || near(k, lo, hi) ? -1 : below;
  }
  return (sigmoidTable = { base, edge, range, scale, guard });
}

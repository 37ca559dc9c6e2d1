// The CPU compositor's mask arithmetic: class ids → subject coverage at a reduced size → a feathered alpha.
import { CHOKE } from './effect.js';

/**
 * Subject coverage (0–255) of each factor×factor block of class ids, padded by `pad` cells on every side
 * with copies of the nearest edge cell, so that a blur does not fade a subject that touches the border.
 * Every cell is written: pass the previous frame's `data` as `into` (when its size fits) to reuse it.
 */
export function subjectCoverage(
  classIds: Uint8Array,
  width: number,
  height: number,
  background: number,
  factor: number,
  pad: number,
  into?: Uint8Array,
): { data: Uint8Array; width: number; height: number } {
  const [cw, ch] = [Math.ceil(width / factor), Math.ceil(height / factor)];
  const [pw, ph] = [cw + 2 * pad, ch + 2 * pad];
  const data = into?.length === pw * ph ? into : new Uint8Array(pw * ph);
  // Subject pixels and pixels counted per cell of one row of cells, then scaled to 0–255 (every camera frame).
  const subject = new Uint16Array(cw);
  const counted = new Uint16Array(cw);
  for (let cy = 0; cy < ch; cy++) {
    subject.fill(0);
    counted.fill(0);
    for (let sy = cy * factor; sy < Math.min(height, (cy + 1) * factor); sy++) {
      for (let sx = 0, i = sy * width; sx < width; sx++, i++) {
        const cx = (sx / factor) | 0;
        counted[cx] = counted[cx]! + 1;
        if (classIds[i] !== background) subject[cx] = subject[cx]! + 1;
      }
    }
    const row = (cy + pad) * pw + pad;
    for (let cx = 0; cx < cw; cx++) data[row + cx] = Math.round((255 * subject[cx]!) / counted[cx]!);
    data.fill(data[row]!, row - pad, row);
    data.fill(data[row + cw - 1]!, row + cw, row + cw + pad);
  }
  for (let y = 0; y < pad; y++) {
    data.copyWithin(y * pw, pad * pw, (pad + 1) * pw);
    data.copyWithin((ph - 1 - y) * pw, (ph - 1 - pad) * pw, (ph - pad) * pw);
  }
  return { data, width: pw, height: ph };
}

/**
 * Coverage that is already at the reduced size (the video path's refined mask), copied into a buffer
 * padded by `pad` cells of the nearest edge cell, as subjectCoverage pads.
 */
export function paddedCoverage(
  coverage: Uint8Array,
  cw: number,
  ch: number,
  pad: number,
  into?: Uint8Array,
): { data: Uint8Array; width: number; height: number } {
  const [pw, ph] = [cw + 2 * pad, ch + 2 * pad];
  const data = into?.length === pw * ph ? into : new Uint8Array(pw * ph);
  for (let y = 0; y < ch; y++) {
    const row = (y + pad) * pw + pad;
    data.set(coverage.subarray(y * cw, (y + 1) * cw), row);
    data.fill(data[row]!, row - pad, row);
    data.fill(data[row + cw - 1]!, row + cw, row + cw + pad);
  }
  for (let y = 0; y < pad; y++) {
    data.copyWithin(y * pw, pad * pw, (pad + 1) * pw);
    data.copyWithin((ph - 1 - y) * pw, (ph - 1 - pad) * pw, (ph - pad) * pw);
  }
  return { data, width: pw, height: ph };
}

// boxBlur's rows of sums, kept for the next call (it runs several times on every camera frame); each
// call writes what it reads.
const scratch = { across: new Float32Array(0), sums: new Float64Array(0) };

/**
 * A box blur of radius r across then down, in place, `passes` times (three passes approach a Gaussian
 * of σ = √(r(r+1))). A constant region stays exactly that constant (bytes are rounded, not truncated).
 */
export function boxBlur(data: Uint8Array | Float32Array, width: number, height: number, radius: number, passes: number): void {
  const inv = 1 / (2 * radius + 1);
  const round = data instanceof Uint8Array;
  // Across, a running sum per row, the cells past its ends read as its end cells; down, all the columns'
  // running sums advance a row at a time (the order the memory lies in). This runs on every camera frame.
  if (scratch.across.length < width * height) scratch.across = new Float32Array(width * height);
  if (scratch.sums.length < width) scratch.sums = new Float64Array(width);
  const { across, sums } = scratch;
  const at = (i: number, lo: number, hi: number) => data[Math.min(hi, Math.max(lo, i))]!;
  for (let p = 0; p < passes; p++) {
    for (let y = 0; y < height; y++) {
      const start = y * width;
      const end = start + width - 1;
      const [first, last] = [data[start]!, data[end]!];
      let sum = 0;
      for (let k = -radius; k <= radius; k++) sum += at(start + k, start, end);
      // The window's ends: clamped while it overhangs the row's start, then inside, then overhanging its end.
      let i = start;
      for (; i <= Math.min(end, start + radius); i++) {
        across[i] = round ? (sum * inv + 0.5) | 0 : sum * inv;
        sum += at(i + radius + 1, start, end) - first;
      }
      for (; i < end - radius; i++) {
        across[i] = round ? (sum * inv + 0.5) | 0 : sum * inv;
        sum += data[i + radius + 1]! - data[i - radius]!;
      }
      for (; i <= end; i++) {
        across[i] = round ? (sum * inv + 0.5) | 0 : sum * inv;
        sum += last - data[i - radius]!;
      }
    }
    sums.fill(0, 0, width);
    for (let k = -radius; k <= radius; k++) {
      const row = Math.min(height - 1, Math.max(0, k)) * width;
      for (let x = 0; x < width; x++) sums[x] = sums[x]! + across[row + x]!;
    }
    for (let y = 0; y < height; y++) {
      const out = y * width;
      const enter = Math.min(height - 1, y + radius + 1) * width;
      const leave = Math.max(0, y - radius) * width;
      if (round) {
        for (let x = 0; x < width; x++) {
          data[out + x] = (sums[x]! * inv + 0.5) | 0;
          sums[x] = sums[x]! + (across[enter + x]! - across[leave + x]!);
        }
      } else {
        for (let x = 0; x < width; x++) {
          data[out + x] = sums[x]! * inv;
          sums[x] = sums[x]! + (across[enter + x]! - across[leave + x]!);
        }
      }
    }
  }
}

/** The box radius whose `passes` passes have the variance of a Gaussian of σ (in cells): σ² = passes·r(r+1)/3. */
export const boxRadiusFor = (sigma: number, passes: number): number =>
  Math.max(1, Math.round(Math.sqrt((3 * sigma * sigma) / passes + 0.25) - 0.5));

/** CHOKE's smoothstep as a table from coverage to alpha, both 0–255. */
export const CHOKE_TABLE: Uint8Array = Uint8Array.from({ length: 256 }, (_, v) => {
  const t = Math.min(1, Math.max(0, (v / 255 - CHOKE.from) / (CHOKE.to - CHOKE.from)));
  return Math.round(255 * t * t * (3 - 2 * t));
});

/**
 * The colour channels of an RGBA image scaled up 2× into those of `into` (whose size may be a pixel
 * short of twice, as a ceil'd half size is): bilinear at half-pixel centres, so each output pixel takes
 * ¾ of its nearest source pixel and ¼ of the next one out, each way (in sixteenths, rounded), the edges
 * repeated. Alpha is left as it is, and so are the pixels whose alpha is 0 (nothing shows them).
 */
export function upsample2x(
  source: { data: Uint8ClampedArray; width: number; height: number },
  into: { data: Uint8ClampedArray; width: number; height: number },
): void {
  const { width: sw, height: sh, data: src } = source;
  const { width: ow, height: oh, data: out } = into;
  // Output pixel x lies at source x/2 − ¼: even ones between source x/2 − 1 and x/2 (¼, ¾), odd ones
  // between (x−1)/2 and (x+1)/2 (¾, ¼). Per output column: its two source pixels (byte offsets), the
  // second one's weight in quarters.
  const near = new Int32Array(ow);
  const next = new Int32Array(ow);
  const far = new Int32Array(ow);
  const clamp = (i: number, n: number) => Math.min(n - 1, Math.max(0, i));
  for (let x = 0; x < ow; x++) {
    const i = (x - 1) >> 1;
    near[x] = clamp(i, sw) * 4;
    next[x] = clamp(i + 1, sw) * 4;
    far[x] = x & 1 ? 1 : 3;
  }
  for (let y = 0, o = 0; y < oh; y++) {
    const i = (y - 1) >> 1;
    const top = clamp(i, sh) * sw * 4;
    const bottom = clamp(i + 1, sh) * sw * 4;
    const fy = y & 1 ? 1 : 3;
    for (let x = 0; x < ow; x++, o += 4) {
      if (out[o + 3] === 0) continue;
      const a = top + near[x]!;
      const b = top + next[x]!;
      const c = bottom + near[x]!;
      const d = bottom + next[x]!;
      const fx = far[x]!;
      // (4 − fx)(4 − fy)·a + fx(4 − fy)·b + (4 − fx)fy·c + fx·fy·d, over 16.
      const wa = (4 - fx) * (4 - fy);
      const wb = fx * (4 - fy);
      const wc = (4 - fx) * fy;
      const wd = fx * fy;
      out[o] = (wa * src[a]! + wb * src[b]! + wc * src[c]! + wd * src[d]! + 8) >> 4;
      out[o + 1] = (wa * src[a + 1]! + wb * src[b + 1]! + wc * src[c + 1]! + wd * src[d + 1]! + 8) >> 4;
      out[o + 2] = (wa * src[a + 2]! + wb * src[b + 2]! + wc * src[c + 2]! + wd * src[d + 2]! + 8) >> 4;
    }
  }
}

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

/** The box radius whose `passes` passes have the variance of a Gaussian of σ (in cells): σ² = passes·r(r+1)/3. */
export const boxRadiusFor = (sigma: number, passes: number): number =>
  Math.max(1, Math.round(Math.sqrt((3 * sigma * sigma) / passes + 0.25) - 0.5));

/** CHOKE's smoothstep as a table from coverage to alpha, both 0–255. */
export const CHOKE_TABLE: Uint8Array = Uint8Array.from({ length: 256 }, (_, v) => {
  const t = Math.min(1, Math.max(0, (v / 255 - CHOKE.from) / (CHOKE.to - CHOKE.from)));
  return Math.round(255 * t * t * (3 - 2 * t));
});

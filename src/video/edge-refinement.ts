// Edges at the frame's resolution: joint bilateral upsampling of the network-resolution subject
// probability, guided by the frame, instead of a plain bilinear upscale (which draws the network's
// blocky, soft edge across the picture's own edge and glows there).
import type { GridMap } from './fast-path.js';

/** The spatial spread of the upsampling, in grid cells, and how far colours may differ and still count as alike (sum of |ΔR|+|ΔG|+|ΔB|). */
export const REFINE = { spatialSigma: 0.8, rangeSigma: 36 } as const;

// exp(−d² / 2σ²) over the colour distance d = |ΔR| + |ΔG| + |ΔB|, with a floor so that a cell unlike
// every neighbour still gets an answer (the spatial weights then decide).
const RANGE_TABLE = Float32Array.from({ length: 766 }, (_, d) => Math.max(1e-4, Math.exp((-d * d) / (2 * REFINE.rangeSigma ** 2))));

/**
 * The subject's coverage (0–255) of an `ow × oh` image that covers the frame (each output pixel is
 * `frameWidth / ow` frame pixels across), from `probability` on the grid that `map` places on the frame.
 * Each output pixel averages the 4 × 4 grid cells around it, each weighted by its distance and by how
 * alike the cell's colour (`guideLow`, the frame at the grid's resolution) and the pixel's colour
 * (`guideHigh`, the frame at the output's resolution) are, so that the edge follows the picture's edge.
 * Both guides are RGBA. Pixels outside the map's crop are background.
 */
export function refineCoverage(
  grid: { probability: Uint8Array; width: number; height: number },
  map: GridMap,
  guideLow: Uint8ClampedArray,
  guideHigh: Uint8ClampedArray,
  ow: number,
  oh: number,
  frameWidth: number,
  frameHeight: number,
  out?: Uint8Array,
): Uint8Array {
  const { probability, width: gw, height: gh } = grid;
  const result = out?.length === ow * oh ? out : new Uint8Array(ow * oh);
  const axis = (count: number, frameSize: number, scale: number, offset: number, lo: number, hi: number) => {
    // Per output column (or row): the first of its 4 cells, their 4 spatial weights, and whether it is inside the crop.
    const first = new Int32Array(count);
    const weights = new Float32Array(count * 4);
    const inside = new Uint8Array(count);
    const s2 = 2 * REFINE.spatialSigma ** 2;
    for (let o = 0; o < count; o++) {
      const f = ((o + 0.5) * frameSize) / count;
      inside[o] = f >= lo && f < hi ? 1 : 0;
      const g = f * scale + offset - 0.5;
      const base = Math.floor(g) - 1;
      first[o] = base;
      for (let k = 0; k < 4; k++) {
        const d = base + k - g;
        // A cell past the grid's edge repeats the edge cell; its weight stays that of its distance.
        weights[o * 4 + k] = Math.exp((-d * d) / s2);
      }
    }
    return { first, weights, inside };
  };
  const { crop } = map;
  const xs = axis(ow, frameWidth, map.scaleX, map.offsetX, crop.x, crop.x + crop.width);
  const ys = axis(oh, frameHeight, map.scaleY, map.offsetY, crop.y, crop.y + crop.height);
  const column = new Int32Array(4);
  const row = new Int32Array(4);
  for (let oy = 0; oy < oh; oy++) {
    for (let k = 0; k < 4; k++) row[k] = Math.min(gh - 1, Math.max(0, ys.first[oy]! + k)) * gw;
    for (let ox = 0, o = oy * ow; ox < ow; ox++, o++) {
      if (!xs.inside[ox] || !ys.inside[oy]) {
        result[o] = 0;
        continue;
      }
      for (let k = 0; k < 4; k++) column[k] = Math.min(gw - 1, Math.max(0, xs.first[ox]! + k));
      const p = o * 4;
      const [r, g, b] = [guideHigh[p]!, guideHigh[p + 1]!, guideHigh[p + 2]!];
      let sum = 0;
      let total = 0;
      for (let j = 0; j < 4; j++) {
        const wy = ys.weights[oy * 4 + j]!;
        const base = row[j]!;
        for (let i = 0; i < 4; i++) {
          const cell = base + column[i]!;
          const q = cell * 4;
          const d = Math.abs(guideLow[q]! - r) + Math.abs(guideLow[q + 1]! - g) + Math.abs(guideLow[q + 2]! - b);
          const w = wy * xs.weights[ox * 4 + i]! * RANGE_TABLE[d]!;
          sum += w * probability[cell]!;
          total += w;
        }
      }
      result[o] = (sum / total + 0.5) | 0;
    }
  }
  return result;
}

// Edges at the picture's resolution: joint bilateral upsampling of the network-resolution subject
// probability, guided by the picture (a camera frame, a still), instead of a plain bilinear upscale (which
// draws the network's blocky, soft edge across the picture's own edge and glows there).
import type { PreprocessMeta } from './types.js';

/**
 * Where the grid of the network's output lies on the frame: grid x = frame x · scaleX + offsetX (both in
 * continuous pixel coordinates, a pixel spanning [i, i + 1)). Frame pixels outside `crop` (a static crop)
 * are background.
 */
export interface GridMap {
  scaleX: number;
  offsetX: number;
  scaleY: number;
  offsetY: number;
  crop: { x: number; y: number; width: number; height: number };
}

/** How a frame maps onto a grid of gw × gh cells that covers the network input. */
export function gridMap(meta: PreprocessMeta, gw: number, gh: number): GridMap {
  const scaledW = meta.inputWidth - meta.padLeft - meta.padRight;
  const scaledH = meta.inputHeight - meta.padTop - meta.padBottom;
  const [kx, ky] = [gw / meta.inputWidth, gh / meta.inputHeight];
  const [sx, sy] = [scaledW / meta.cropWidth, scaledH / meta.cropHeight];
  return {
    scaleX: sx * kx,
    offsetX: (meta.padLeft - meta.cropX * sx) * kx,
    scaleY: sy * ky,
    offsetY: (meta.padTop - meta.cropY * sy) * ky,
    crop: { x: meta.cropX, y: meta.cropY, width: meta.cropWidth, height: meta.cropHeight },
  };
}

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
 * `guideLow` is RGBA; `guideHigh` has `highChannels` channels a pixel (RGBA, or RGB for a decoded
 * still). Pixels outside the map's crop are background.
 */
export function refineCoverage(
  grid: { probability: Uint8Array; width: number; height: number },
  map: GridMap,
  guideLow: Uint8ClampedArray,
  guideHigh: Uint8ClampedArray | Uint8Array,
  ow: number,
  oh: number,
  frameWidth: number,
  frameHeight: number,
  out?: Uint8Array,
  highChannels: 3 | 4 = 4,
): Uint8Array {
  const { probability, width: gw, height: gh } = grid;
  const result = out?.length === ow * oh ? out : new Uint8Array(ow * oh);
  const { crop } = map;
  const xs = axis(ow, frameWidth, map.scaleX, map.offsetX, crop.x, crop.x + crop.width);
  const ys = axis(oh, frameHeight, map.scaleY, map.offsetY, crop.y, crop.y + crop.height);
  const flat = flatBlocks(probability, gw, gh);
  const bw = gw + 3;
  // Per output column: its block in `flat` and its 4 cells' columns (clamped to the grid).
  const blockX = new Int32Array(ow);
  const cellX = new Int32Array(ow * 4);
  for (let ox = 0; ox < ow; ox++) {
    const first = xs.first[ox]!;
    blockX[ox] = Math.min(gw - 1, Math.max(-3, first)) + 3;
    for (let k = 0; k < 4; k++) cellX[ox * 4 + k] = Math.min(gw - 1, Math.max(0, first + k));
  }
  const wx = xs.weights;
  const row = new Int32Array(4);
  const wy = new Float64Array(4);
  for (let oy = 0; oy < oh; oy++) {
    const start = oy * ow;
    if (!ys.inside[oy]) {
      result.fill(0, start, start + ow);
      continue;
    }
    const first = ys.first[oy]!;
    const flatRow = (Math.min(gh - 1, Math.max(-3, first)) + 3) * bw;
    for (let k = 0; k < 4; k++) {
      row[k] = Math.min(gh - 1, Math.max(0, first + k)) * gw;
      wy[k] = ys.weights[oy * 4 + k]!;
    }
    for (let ox = 0, o = start; ox < ow; ox++, o++) {
      if (!xs.inside[ox]) {
        result[o] = 0;
        continue;
      }
      // All 16 cells alike: every weighting averages to that value (deep inside or outside the subject).
      const v = flat[flatRow + blockX[ox]!]!;
      if (v >= 0) {
        result[o] = v;
        continue;
      }
      const p = o * highChannels;
      const r = guideHigh[p]!;
      const g = guideHigh[p + 1]!;
      const b = guideHigh[p + 2]!;
      const c = ox * 4;
      let sum = 0;
      let total = 0;
      for (let j = 0; j < 4; j++) {
        const base = row[j]!;
        for (let i = 0; i < 4; i++) {
          const cell = base + cellX[c + i]!;
          const q = cell * 4;
          const d = Math.abs(guideLow[q]! - r) + Math.abs(guideLow[q + 1]! - g) + Math.abs(guideLow[q + 2]! - b);
          const w = wy[j]! * wx[c + i]! * RANGE_TABLE[d]!;
          sum += w * probability[cell]!;
          total += w;
        }
      }
      result[o] = (sum / total + 0.5) | 0;
    }
  }
  return result;
}

/** Per output column (or row): the first of its 4 cells, their 4 spatial weights, and whether it is inside the crop. */
function axis(count: number, frameSize: number, scale: number, offset: number, lo: number, hi: number) {
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
}

/**
 * For each 4 × 4 block of cells (clamped to the grid) that starts at (x, y), x and y from −3 to the
 * grid's last cell, at [(y + 3)(gw + 3) + x + 3]: its probability where all 16 cells have the same one,
 * else −1. Past those starts a block is all edge cells, as the block at the last start is.
 */
export function flatBlocks(probability: Uint8Array, gw: number, gh: number): Int16Array {
  const bw = gw + 3;
  // Across first: per grid row and block start, the value of 4 alike cells (from two overlapping alike
  // pairs) or −1; a row is read with 3 copies of its end cells on either side, as the clamping reads it.
  const across = new Int16Array(bw * gh);
  const line = new Int16Array(gw + 6);
  const pairs = new Int16Array(gw + 5);
  for (let y = 0; y < gh; y++) {
    const row = y * gw;
    line.fill(probability[row]!, 0, 3);
    line.set(probability.subarray(row, row + gw), 3);
    line.fill(probability[row + gw - 1]!, gw + 3);
    for (let s = 0; s < gw + 5; s++) pairs[s] = line[s] === line[s + 1] ? line[s]! : -1;
    for (let s = 0, o = y * bw; s < bw; s++) across[o + s] = pairs[s] === pairs[s + 2] ? pairs[s]! : -1;
  }
  // Then down: 4 rows (clamped) of alike runs with the same value.
  const flat = new Int16Array(bw * (gh + 3));
  for (let by = -3; by < gh; by++) {
    const r0 = Math.max(0, by) * bw;
    const r1 = Math.min(gh - 1, Math.max(0, by + 1)) * bw;
    const r2 = Math.min(gh - 1, Math.max(0, by + 2)) * bw;
    const r3 = Math.min(gh - 1, by + 3) * bw;
    for (let s = 0, o = (by + 3) * bw; s < bw; s++) {
      const v = across[r0 + s]!;
      flat[o + s] = v >= 0 && v === across[r1 + s] && v === across[r2 + s] && v === across[r3 + s] ? v : -1;
    }
  }
  return flat;
}

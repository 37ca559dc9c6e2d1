// Edges at the picture's resolution: joint bilateral upsampling of the network-resolution subject
// probability, guided by the picture (a camera frame, a still), instead of a plain bilinear upscale (which
// draws the network's blocky, soft edge across the picture's own edge and glows there).
import { jointBilateral } from './kernels.js';
import type { PreprocessMeta } from './types.js';

export { flatBlocks } from './kernels.js';

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
  const result = out?.length === ow * oh ? out : new Uint8Array(ow * oh);
  const { crop } = map;
  const xs = axis(ow, frameWidth, map.scaleX, map.offsetX, crop.x, crop.x + crop.width);
  const ys = axis(oh, frameHeight, map.scaleY, map.offsetY, crop.y, crop.y + crop.height);
  jointBilateral(grid, guideLow, guideHigh, highChannels, xs, ys, RANGE_TABLE, result);
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

// Temporal smoothing of the subject's probability at the network's resolution: still parts of the
// picture average over frames (no flicker), parts that move take the new frame as it is (no ghost).
/**
 * How motion is told from camera noise: the mean absolute luma change over a 3 × 3 neighbourhood of grid
 * cells, in 8-bit levels. At or below `still` a cell is taken for unchanged; at `moving` or above it is
 * reset to the new frame; in between, the new frame's weight rises linearly.
 */
export const MOTION = { still: 6, moving: 18 } as const;

/** Smoothing state: one per video, reset when the grid's size changes. */
export class TemporalSmoother {
  #state: Float32Array | null = null;
  #luma: Float32Array | null = null;
  #nextLuma: Float32Array | null = null;
  #motion: Float32Array | null = null;

  reset(): void {
    this.#state = this.#luma = this.#nextLuma = this.#motion = null;
  }

  /**
   * The smoothed probability (0–255) of this frame. `strength` (0–1) is how much of the past a still
   * cell keeps each frame (0: none, the raw mask); `guide` is the frame at the grid's resolution (RGBA).
   */
  smooth(probability: Uint8Array, guide: Uint8ClampedArray, width: number, height: number, strength: number, out?: Uint8Array): Uint8Array {
    const n = width * height;
    const result = out?.length === n ? out : new Uint8Array(n);
    if (this.#state?.length !== n) {
      this.#state = Float32Array.from(probability);
      this.#luma = lumaOf(guide, n, new Float32Array(n));
      this.#nextLuma = new Float32Array(n);
      this.#motion = new Float32Array(n);
      result.set(probability);
      return result;
    }
    const state = this.#state;
    const luma = lumaOf(guide, n, this.#nextLuma!);
    const motion = motionOf(this.#luma!, luma, width, height, this.#motion!);
    const keep = Math.min(1, Math.max(0, strength));
    for (let i = 0; i < n; i++) {
      const t = Math.min(1, Math.max(0, (motion[i]! - MOTION.still) / (MOTION.moving - MOTION.still)));
      const alpha = 1 - keep * (1 - t);
      const s = state[i]! + alpha * (probability[i]! - state[i]!);
      state[i] = s;
      result[i] = (s + 0.5) | 0;
    }
    [this.#luma, this.#nextLuma] = [luma, this.#luma];
    return result;
  }
}

function lumaOf(rgba: Uint8ClampedArray, n: number, out: Float32Array): Float32Array {
  for (let i = 0, p = 0; i < n; i++, p += 4) out[i] = 0.299 * rgba[p]! + 0.587 * rgba[p + 1]! + 0.114 * rgba[p + 2]!;
  return out;
}

/** Mean |Δluma| over each cell's 3 × 3 neighbourhood (clamped at the borders): noise averages out, motion does not. */
export function motionOf(before: Float32Array, after: Float32Array, width: number, height: number, out: Float32Array): Float32Array {
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let sum = 0;
      let count = 0;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= width) continue;
          const i = yy * width + xx;
          sum += Math.abs(after[i]! - before[i]!);
          count++;
        }
      }
      out[y * width + x] = sum / count;
    }
  }
  return out;
}

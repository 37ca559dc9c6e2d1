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
  #change: Float64Array | null = null;
  #across: Float64Array | null = null;
  #motion: Float32Array | null = null;

  reset(): void {
    this.#state = this.#luma = this.#nextLuma = this.#change = this.#across = this.#motion = null;
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
      this.#luma = new Float32Array(n);
      for (let i = 0, p = 0; i < n; i++, p += 4) this.#luma[i] = 0.299 * guide[p]! + 0.587 * guide[p + 1]! + 0.114 * guide[p + 2]!;
      this.#nextLuma = new Float32Array(n);
      this.#change = new Float64Array(n);
      this.#across = new Float64Array(n);
      this.#motion = new Float32Array(n);
      result.set(probability);
      return result;
    }
    const state = this.#state;
    const [before, luma, change] = [this.#luma!, this.#nextLuma!, this.#change!];
    // This frame's luma and its change from the last frame's, in one pass over the guide.
    for (let i = 0, p = 0; i < n; i++, p += 4) {
      luma[i] = 0.299 * guide[p]! + 0.587 * guide[p + 1]! + 0.114 * guide[p + 2]!;
      change[i] = Math.abs(luma[i]! - before[i]!);
    }
    const motion = mean3x3(change, width, height, this.#across!, this.#motion!);
    const keep = Math.min(1, Math.max(0, strength));
    const span = MOTION.moving - MOTION.still;
    for (let i = 0; i < n; i++) {
      const t = Math.min(1, Math.max(0, (motion[i]! - MOTION.still) / span));
      const alpha = 1 - keep * (1 - t);
      const s = state[i]! + alpha * (probability[i]! - state[i]!);
      state[i] = s;
      result[i] = (s + 0.5) | 0;
    }
    [this.#luma, this.#nextLuma] = [luma, before];
    return result;
  }
}

/** Mean |Δluma| over each cell's 3 × 3 neighbourhood (clamped at the borders): noise averages out, motion does not. */
export function motionOf(before: Float32Array, after: Float32Array, width: number, height: number, out: Float32Array): Float32Array {
  const change = new Float64Array(width * height);
  for (let i = 0; i < change.length; i++) change[i] = Math.abs(after[i]! - before[i]!);
  return mean3x3(change, width, height, new Float64Array(width * height), out);
}

/** The mean of each cell's 3 × 3 neighbourhood that lies inside the grid: sums of 3 across, then of those down. */
function mean3x3(values: Float64Array, width: number, height: number, across: Float64Array, out: Float32Array): Float32Array {
  for (let y = 0; y < height; y++) {
    const row = y * width;
    for (let x = 0, i = row; x < width; x++, i++)
      across[i] = (x > 0 ? values[i - 1]! : 0) + values[i]! + (x < width - 1 ? values[i + 1]! : 0);
  }
  for (let y = 0; y < height; y++) {
    const row = y * width;
    const [up, down] = [y > 0 ? width : 0, y < height - 1 ? width : 0];
    const rows = 1 + (up ? 1 : 0) + (down ? 1 : 0);
    for (let x = 0, i = row; x < width; x++, i++) {
      const columns = 1 + (x > 0 ? 1 : 0) + (x < width - 1 ? 1 : 0);
      const sum = across[i]! + (up ? across[i - up]! : 0) + (down ? across[i + down]! : 0);
      out[i] = sum / (rows * columns);
    }
  }
  return out;
}

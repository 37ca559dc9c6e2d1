// Temporal smoothing of the subject's probability at the network's resolution: still parts of the
// picture average over frames (no flicker), parts that move take the new frame as it is (no ghost). The
// per-frame passes run in WebAssembly (src/pipeline/kernels.ts).
import { mean3x3, smoothFrame, type SmoothingState } from '../pipeline/kernels.js';

/**
 * How motion is told from camera noise: the mean absolute luma change over a 3 × 3 neighbourhood of grid
 * cells, in 8-bit levels. At or below `still` a cell is taken for unchanged; at `moving` or above it is
 * reset to the new frame; in between, the new frame's weight rises linearly.
 */
export const MOTION = { still: 6, moving: 18 } as const;

/** Smoothing state: one per video, reset when the grid's size changes. */
export class TemporalSmoother {
  #memory: SmoothingState | null = null;

  reset(): void {
    this.#memory = null;
  }

  /**
   * The smoothed probability (0–255) of this frame. `strength` (0–1) is how much of the past a still
   * cell keeps each frame (0: none, the raw mask); `guide` is the frame at the grid's resolution (RGBA).
   */
  smooth(probability: Uint8Array, guide: Uint8ClampedArray, width: number, height: number, strength: number, out?: Uint8Array): Uint8Array {
    const n = width * height;
    const result = out?.length === n ? out : new Uint8Array(n);
    // The first frame (or the first of a new size) has no past to keep: it passes as it is, and its luma is kept.
    const past = this.#memory?.state.length === n ? this.#memory : null;
    const memory = past ?? (this.#memory = { state: new Float32Array(n), luma: new Float32Array(n) });
    smoothFrame(probability, guide, width, height, past ? Math.min(1, Math.max(0, strength)) : 0, MOTION, memory, result);
    return result;
  }
}

/** Mean |Δluma| over each cell's 3 × 3 neighbourhood (clamped at the borders): noise averages out, motion does not. */
export function motionOf(before: Float32Array, after: Float32Array, width: number, height: number, out: Float32Array): Float32Array {
  const change = new Float64Array(width * height);
  for (let i = 0; i < change.length; i++) change[i] = Math.abs(after[i]! - before[i]!);
  return mean3x3(change, width, height, out);
}

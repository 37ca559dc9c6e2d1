// onnxruntime's CPU `Resize` (mode linear, half_pixel coordinates, 2-D / NCHW 4-D) in float32, value by value.
//
// Reproduces `SetupUpsampleBilinear` and `UpsampleBilinear` (onnxruntime/core/providers/cpu/tensor/
// upsample.cc, upsample.h; coordinates from upsamplebase.h): per axis, the scale is output / input in
// float32, the source coordinate is ((x + 0.5f) / scale) - 0.5f in float32 (x itself when the scale is
// 1), clamped to [0, in − 1]; the taps are trunc(coordinate) and the next (clamped), their weights
// |coordinate − tap| in float32 (0.5 each where both taps are the same pixel). A value is
// `dx2*dy2*X11 + dx1*dy2*X21 + dx2*dy1*X12 + dx1*dy1*X22`, evaluated left to right, every product and
// sum rounded to float32 (no fused multiply-add: wasm has none and the x86-64 build targets SSE2).
// `pytorch_half_pixel` is the same wherever the output length is above 1.
import type { Logits } from './types.js';

const f32 = Math.fround;

/** Per output index of one axis: the two source taps and their weights. */
export interface ResizeTaps {
  /** First tap (in_x1). */
  lo: Int32Array;
  /** Second tap (in_x2; equal to lo at the far border). */
  hi: Int32Array;
  /** Weight of the first tap (dx2 = |x − in_x2|). */
  wLo: Float32Array;
  /** Weight of the second tap (dx1 = |x − in_x1|). */
  wHi: Float32Array;
}

export function onnxResizeTaps(inSize: number, outSize: number): ResizeTaps {
  const scale = f32(outSize / inSize);
  const lo = new Int32Array(outSize);
  const hi = new Int32Array(outSize);
  const wLo = new Float32Array(outSize);
  const wHi = new Float32Array(outSize);
  for (let i = 0; i < outSize; i++) {
    let x = scale === 1 ? i : f32(f32(f32(i + 0.5) / scale) - 0.5);
    x = Math.max(0, Math.min(x, inSize - 1));
    const a = Math.min(Math.trunc(x), inSize - 1);
    const b = Math.min(a + 1, inSize - 1);
    lo[i] = a;
    hi[i] = b;
    if (a === b) {
      wLo[i] = 0.5;
      wHi[i] = 0.5;
    } else {
      wHi[i] = f32(Math.abs(f32(x - a)));
      wLo[i] = f32(Math.abs(f32(x - b)));
    }
  }
  return { lo, hi, wLo, wHi };
}

/**
 * Logits that the model's removed trailing Resize would have produced: `low` seen as a `height × width`
 * grid. Values are computed on demand with `valueAt`, bit for bit as onnxruntime computes them.
 */
export class VirtualUpsampledLogits {
  readonly channels: number;
  readonly rows: ResizeTaps;
  readonly cols: ResizeTaps;
  private readonly plane: number;

  constructor(
    readonly low: Logits,
    readonly height: number,
    readonly width: number,
  ) {
    this.channels = low.channels;
    this.rows = onnxResizeTaps(low.height, height);
    this.cols = onnxResizeTaps(low.width, width);
    this.plane = low.width * low.height;
  }

  /** Channel c at virtual row y, column x. */
  valueAt(c: number, y: number, x: number): number {
    const { rows, cols } = this;
    const data = this.low.data;
    const w = this.low.width;
    const base = c * this.plane;
    const r1 = base + rows.lo[y]! * w;
    const r2 = base + rows.hi[y]! * w;
    const x1 = cols.lo[x]!;
    const x2 = cols.hi[x]!;
    const dx1 = cols.wHi[x]!;
    const dx2 = cols.wLo[x]!;
    const dy1 = rows.wHi[y]!;
    const dy2 = rows.wLo[y]!;
    let v = f32(f32(dx2 * dy2) * data[r1 + x1]!);
    v = f32(v + f32(f32(dx1 * dy2) * data[r1 + x2]!));
    v = f32(v + f32(f32(dx2 * dy1) * data[r2 + x1]!));
    return f32(v + f32(f32(dx1 * dy1) * data[r2 + x2]!));
  }

  /** The whole upsampled array, as the Resize would have returned it (for the rare paths and for tests). */
  materialise(): Logits {
    const { channels: C, height: H, width: W } = this;
    const data = new Float32Array(C * H * W);
    let o = 0;
    for (let c = 0; c < C; c++) for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) data[o++] = this.valueAt(c, y, x);
    return { data, channels: C, height: H, width: W };
  }
}

// torch.nn.functional.interpolate(mode="bilinear", align_corners=False, antialias=True): per-axis weights.
//
// Reproduces the CPU kernel's float32 weights (`_compute_indices_min_size_weights_aa`): a triangle
// filter whose support widens with the downscale factor, centres at half pixels, normalised to sum to 1.
// For upscaling, these weights and the two passes in class-ids-from-logits.ts match torch bit for bit;
// for downscaling they agree to about one float32 ulp (see docs/exactness.md).

const f32 = Math.fround;

export interface AxisWeights {
  /** First source index of each destination index. */
  start: Int32Array;
  /** Number of source taps of each destination index. */
  count: Int32Array;
  /** Offset of each destination index's weights in `weights`. */
  offset: Int32Array;
  weights: Float32Array;
}

export function antialiasWeights(srcSize: number, dstSize: number): AxisWeights {
  const scale = f32(srcSize / dstSize);
  const support = scale >= 1 ? scale : 1;
  const invScale = scale >= 1 ? f32(1 / scale) : 1;
  const start = new Int32Array(dstSize);
  const count = new Int32Array(dstSize);
  const offset = new Int32Array(dstSize);
  const maxTaps = Math.ceil(support) * 2 + 1;
  const weights = new Float32Array(dstSize * maxTaps);
  let used = 0;
  for (let i = 0; i < dstSize; i++) {
    const center = f32(scale * (i + 0.5));
    // center ± support is a float32 operation in the kernel; + 0.5 happens in double.
    const xmin = Math.max(Math.trunc(f32(center - support) + 0.5), 0);
    const size = Math.min(Math.max(Math.min(Math.trunc(f32(center + support) + 0.5), srcSize) - xmin, 0), maxTaps);
    start[i] = xmin;
    count[i] = size;
    offset[i] = used;
    let total = 0;
    for (let j = 0; j < size; j++) {
      // (j + xmin - center) in float32, + 0.5 and * invscale in double, rounded into the filter's float.
      let x = f32((f32(j + xmin - center) + 0.5) * invScale);
      if (x < 0) x = -x;
      const w = x < 1 ? f32(1 - x) : 0;
      weights[used + j] = w;
      total = f32(total + w);
    }
    if (total !== 0) for (let j = 0; j < size; j++) weights[used + j] = f32(weights[used + j]! / total);
    used += size;
  }
  return { start, count, offset, weights: weights.subarray(0, used) };
}

/**
 * One accumulation step of torch's kernel: `acc + value * weight` contracted into a float32 fused
 * multiply-add, as the compiler emits it (the product is exact in double; one rounding to float32).
 */
export function fma32(acc: number, value: number, weight: number): number {
  return f32(acc + value * weight);
}

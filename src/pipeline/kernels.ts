// The heaviest per-frame loops of live video's masks and of the CPU compositor (the picture at the grid's
// resolution, temporal smoothing, joint bilateral upsampling and its flat blocks, the box blurs, the 2×
// upscale), run in WebAssembly (src/pipeline/wasm/kernels.as.ts, with SIMD where it pays): 1.5–3.5× the
// plain JavaScript loops they replaced, with the same bytes. Each call copies its arrays into the module's
// memory and its results out. The module (6 kB) is compiled on first use, synchronously, so that a page's
// compositor and a still's soft alpha need no setup (Chromium once refused that over 4 kB on a page's main
// thread; Chromium 156, Firefox ESR 153 and WebKitGTK compile it there).
import { BackendError } from '../errors/index.js';
import { KERNELS_WASM } from './wasm/kernels.wasm.js';

type Pointer = number;

interface Exports {
  memory: WebAssembly.Memory;
  heapBase(): Pointer;
  boxBlurBytes(data: Pointer, width: number, height: number, radius: number, passes: number, across: Pointer, sums: Pointer): void;
  boxBlurFloats(
    data: Pointer,
    width: number,
    height: number,
    channels: number,
    radius: number,
    passes: number,
    across: Pointer,
    sums: Pointer,
  ): void;
  upsample2x(source: Pointer, sw: number, sh: number, into: Pointer, ow: number, oh: number): void;
  flatBlocks(probability: Pointer, gw: number, gh: number, flat: Pointer, scratch: Pointer): void;
  refineCoverage(...args: number[]): void;
  guideAtGrid(...args: number[]): void;
  smooth(...args: number[]): void;
  mean3x3(values: Pointer, width: number, height: number, across: Pointer, out: Pointer): void;
}

let instance: Exports | null = null;

function kernels(): Exports {
  if (instance) return instance;
  try {
    const bytes = Uint8Array.from(atob(KERNELS_WASM), (c) => c.charCodeAt(0));
    instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), {}).exports as unknown as Exports;
  } catch (cause) {
    // A page whose Content-Security-Policy has no 'wasm-unsafe-eval' (onnxruntime-web needs it too).
    throw new BackendError('BACKEND_UNAVAILABLE', 'live video and soft edges need WebAssembly, which this page or engine does not allow', {
      cause,
    });
  }
  return instance;
}

/** A pointer for each of `T`'s entries. */
type Pointers<T extends readonly unknown[]> = { [K in keyof T]: Pointer };

/**
 * Lays `arrays` and then `scratch` (sizes, bytes) out in the module's memory, each 16-byte aligned, growing it
 * where needed, and copies the arrays in: the pointers to all of them, in that order.
 */
function place<const A extends readonly ArrayBufferView[], const S extends readonly number[] = []>(
  k: Exports,
  arrays: A,
  scratch?: S,
): Pointers<[...A, ...S]> {
  let at = k.heapBase();
  const pointers = [...arrays.map((a) => a.byteLength), ...(scratch ?? [])].map((size) => {
    const pointer = (at + 15) & ~15;
    at = pointer + size;
    return pointer;
  });
  const short = at - k.memory.buffer.byteLength;
  if (short > 0) k.memory.grow(Math.ceil(short / 65536));
  arrays.forEach((a, i) =>
    new Uint8Array(k.memory.buffer, pointers[i], a.byteLength).set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength)),
  );
  return pointers as Pointers<[...A, ...S]>;
}

/** Copies `into.byteLength` bytes at `at` out of the module's memory into `into`. */
function take(k: Exports, at: Pointer, into: ArrayBufferView): void {
  new Uint8Array(into.buffer, into.byteOffset, into.byteLength).set(new Uint8Array(k.memory.buffer, at, into.byteLength));
}

/**
 * A box blur of radius r across then down, in place, `passes` times (three passes approach a Gaussian of
 * σ = √(r(r+1))), on `width × height` pixels of `channels` interleaved values: bytes (one channel; each pass
 * rounds, so a constant region stays exactly that constant) or floats (1 or 4 channels, each blurred on its
 * own). The cells past a line's ends read as its end cells.
 */
export function boxBlur(
  data: Uint8Array | Float32Array,
  width: number,
  height: number,
  radius: number,
  passes: number,
  channels: 1 | 4 = 1,
): void {
  const bytes = data instanceof Uint8Array;
  if (data.length !== width * height * channels || (bytes && channels !== 1)) {
    throw new RangeError(`boxBlur: ${data.length} ${bytes ? 'bytes' : 'floats'} for ${width}×${height}×${channels}`);
  }
  const k = kernels();
  const [at, across, sums] = place(k, [data], [data.length * 4, width * channels * 8]);
  if (bytes) k.boxBlurBytes(at, width, height, radius, passes, across, sums);
  else k.boxBlurFloats(at, width, height, channels, radius, passes, across, sums);
  take(k, at, data);
}

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
  const k = kernels();
  const [from, to] = place(k, [source.data, into.data]);
  k.upsample2x(from, source.width, source.height, to, into.width, into.height);
  take(k, to, into.data);
}

/** The sizes of flatBlocks's output and scratch, bytes. */
const flatSizes = (gw: number, gh: number) => [(gw + 3) * (gh + 3) * 2, ((gw + 3) * gh + 2 * gw + 11) * 2] as const;

/**
 * For each 4 × 4 block of cells (clamped to the grid) that starts at (x, y), x and y from −3 to the
 * grid's last cell, at [(y + 3)(gw + 3) + x + 3]: its probability where all 16 cells have the same one,
 * else −1. Past those starts a block is all edge cells, as the block at the last start is.
 */
export function flatBlocks(probability: Uint8Array, gw: number, gh: number): Int16Array {
  const k = kernels();
  const [at, flat, scratch] = place(k, [probability], flatSizes(gw, gh));
  k.flatBlocks(at, gw, gh, flat, scratch);
  const out = new Int16Array((gw + 3) * (gh + 3));
  take(k, flat, out);
  return out;
}

/** Per output column (or row) of joint bilateral upsampling: its first grid cell, its 4 cells' spatial weights, whether it is inside the crop. */
export interface UpsampleAxis {
  first: Int32Array;
  weights: Float32Array;
  inside: Uint8Array;
}

/**
 * Joint bilateral upsampling into `out` (`ow × oh`), as refineCoverage (src/pipeline/edge-refinement.ts)
 * defines it and lays out its tables: `probability` on a `gw × gh` grid, `low` the picture at the grid's
 * resolution (RGBA), `high` at the output's (`channels` a pixel), `range` the colour-distance weights;
 * blocks of 16 alike cells (flatBlocks) take their value at once.
 */
export function jointBilateral(
  grid: { probability: Uint8Array; width: number; height: number },
  low: Uint8ClampedArray,
  high: Uint8ClampedArray | Uint8Array,
  channels: number,
  xs: UpsampleAxis,
  ys: UpsampleAxis,
  range: Float32Array,
  out: Uint8Array,
): void {
  const k = kernels();
  const { probability, width: gw, height: gh } = grid;
  const [ow, oh] = [xs.first.length, ys.first.length];
  const [at, lowAt, highAt, xFirst, xWeights, xInside, yFirst, yWeights, yInside, rangeAt, flat, scratch, columns, outAt] = place(
    k,
    [probability, low, high, xs.first, xs.weights, xs.inside, ys.first, ys.weights, ys.inside, range],
    [...flatSizes(gw, gh), ow * 20, out.length],
  );
  k.flatBlocks(at, gw, gh, flat, scratch);
  k.refineCoverage(
    at,
    gw,
    gh,
    lowAt,
    highAt,
    channels,
    ow,
    oh,
    xFirst,
    xWeights,
    xInside,
    yFirst,
    yWeights,
    yInside,
    flat,
    rangeAt,
    columns,
    outAt,
  );
  take(k, outAt, out);
}

/** Per cell of a grid (or row), the guide pixels it reads bilinearly: the first (−1 outside the crop), the step to the second (0 or 1), and the second one's weight. */
export interface BilinearAxis {
  first: Int32Array;
  step: Int32Array;
  weight: Float32Array;
}

/**
 * The `gw × gh` grid's picture (RGBA, alpha 255) into `out`, each cell read bilinearly from `data` (RGBA,
 * `width` pixels a row) where `xs` and `ys` say, rounded as a clamped byte array rounds; black outside the
 * crop.
 */
export function bilinearCells(data: Uint8ClampedArray, width: number, xs: BilinearAxis, ys: BilinearAxis, out: Uint8ClampedArray): void {
  const k = kernels();
  const [gw, gh] = [xs.first.length, ys.first.length];
  const [at, xFirst, xStep, xWeight, yFirst, yStep, yWeight, outAt] = place(
    k,
    [data, xs.first, xs.step, xs.weight, ys.first, ys.step, ys.weight],
    [gw * gh * 4],
  );
  k.guideAtGrid(at, width, gw, gh, xFirst, xStep, xWeight, yFirst, yStep, yWeight, outAt);
  take(k, outAt, out);
}

/** What temporal smoothing keeps from frame to frame: each cell's smoothed probability, and the last frame's luma. */
export interface SmoothingState {
  state: Float32Array;
  luma: Float32Array;
}

/**
 * One frame of temporal smoothing (src/video/temporal-smoothing.ts defines it): the byte of each cell's
 * smoothed probability into `out`; `memory`'s state moves on to this frame (its luma replaces the last one).
 * `keep` (0–1) is how much of the past a still cell keeps; motion between `still` and `moving` (8-bit
 * levels, over each cell's 3 × 3 neighbourhood) lets the new frame in linearly.
 */
export function smoothFrame(
  probability: Uint8Array,
  guide: Uint8ClampedArray,
  width: number,
  height: number,
  keep: number,
  motion: { still: number; moving: number },
  memory: SmoothingState,
  out: Uint8Array,
): void {
  const k = kernels();
  const n = width * height;
  const [at, guideAt, state, before, luma, change, across, motionAt, outAt] = place(
    k,
    [probability, guide, memory.state, memory.luma],
    [n * 4, n * 8, n * 8, n * 4, n],
  );
  k.smooth(at, guideAt, width, height, keep, motion.still, motion.moving, state, before, luma, change, across, motionAt, outAt);
  take(k, state, memory.state);
  take(k, luma, memory.luma);
  take(k, outAt, out);
}

/** The mean (into `out`) of each cell's 3 × 3 neighbourhood of `values` that lies inside the grid. */
export function mean3x3(values: Float64Array, width: number, height: number, out: Float32Array): Float32Array {
  const k = kernels();
  const [at, across, outAt] = place(k, [values], [values.length * 8, out.byteLength]);
  k.mean3x3(at, width, height, across, outAt);
  take(k, outAt, out);
  return out;
}

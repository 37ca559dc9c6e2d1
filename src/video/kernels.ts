// The CPU compositor's heaviest per-frame loops (the box blurs, the 2× upscale), run in WebAssembly with
// SIMD (src/video/wasm/kernels.as.ts): 2–3.5× the plain JavaScript loops they replaced, with the same
// bytes. The module (3 kB) is compiled on first use, synchronously: under the 4 kB that Chromium compiles
// that way on a page's main thread, so that a page's compositor needs no setup.
import { BackendError } from '../errors/index.js';
import { KERNELS_WASM } from './wasm/kernels.wasm.js';

interface Exports {
  memory: WebAssembly.Memory;
  heapBase(): number;
  boxBlurBytes(data: number, width: number, height: number, radius: number, passes: number, across: number, sums: number): void;
  boxBlurFloats(
    data: number,
    width: number,
    height: number,
    channels: number,
    radius: number,
    passes: number,
    across: number,
    sums: number,
  ): void;
  upsample2x(source: number, sw: number, sh: number, into: number, ow: number, oh: number): void;
}

let instance: Exports | null = null;

function kernels(): Exports {
  if (instance) return instance;
  try {
    const bytes = Uint8Array.from(atob(KERNELS_WASM), (c) => c.charCodeAt(0));
    instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), {}).exports as unknown as Exports;
  } catch (cause) {
    // A page whose Content-Security-Policy has no 'wasm-unsafe-eval' (onnxruntime-web needs it too).
    throw new BackendError('BACKEND_UNAVAILABLE', 'the compositor needs WebAssembly, which this page or engine does not allow', { cause });
  }
  return instance;
}

/** Lays `sizes` (bytes) out in the module's memory, each 16-byte aligned, growing it where needed: their offsets. */
function reserve(k: Exports, ...sizes: number[]): number[] {
  let at = k.heapBase();
  const offsets = sizes.map((size) => {
    const offset = (at + 15) & ~15;
    at = offset + size;
    return offset;
  });
  const short = at - k.memory.buffer.byteLength;
  if (short > 0) k.memory.grow(Math.ceil(short / 65536));
  return offsets;
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
  const values = width * height * channels;
  const [at, across, sums] = reserve(k, data.byteLength, values * 4, width * channels * 8) as [number, number, number];
  const view = bytes ? new Uint8Array(k.memory.buffer, at, values) : new Float32Array(k.memory.buffer, at, values);
  view.set(data);
  if (bytes) k.boxBlurBytes(at, width, height, radius, passes, across, sums);
  else k.boxBlurFloats(at, width, height, channels, radius, passes, across, sums);
  data.set(view);
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
  const [from, to] = reserve(k, source.data.length, into.data.length) as [number, number];
  const target = new Uint8ClampedArray(k.memory.buffer, to, into.data.length);
  new Uint8ClampedArray(k.memory.buffer, from, source.data.length).set(source.data);
  target.set(into.data);
  k.upsample2x(from, source.width, source.height, to, into.width, into.height);
  into.data.set(target);
}

// The CPU compositor's per-frame loops in WebAssembly with SIMD (AssemblyScript; `npm run build:kernels`
// writes kernels.wasm.ts from it, which src/video/kernels.ts instantiates). Each computes exactly what the
// plain loops in test/unit/video/kernel-parity.test.ts compute: the same operations in the same order, in
// f64 where those use JavaScript numbers, so that every engine gives the same bytes.
//
// Memory is the caller's: pointers are byte offsets that src/video/kernels.ts lays out from `heapBase()`.

/** Where the caller's buffers may start (past this module's own data). */
export function heapBase(): usize {
  return __heap_base;
}

/**
 * A box blur of radius `radius` across then down, `passes` times, in place, on `width × height` pixels of
 * `channels` interleaved values at `data`: bytes (one channel; each pass rounds to a byte) or f32 (1 or 4
 * channels). The window's cells past a line's ends read as its end cells. `across` (f32, one per value) and
 * `sums` (f64, one per value of a row) are scratch.
 */
export function boxBlurBytes(data: usize, width: i32, height: i32, radius: i32, passes: i32, across: usize, sums: usize): void {
  for (let p = 0; p < passes; p++) {
    for (let y = 0; y < height; y++) acrossLine<u8>(data, across, y * width, width, radius);
    down<u8>(data, across, sums, width, height, radius);
  }
}

export function boxBlurFloats(
  data: usize,
  width: i32,
  height: i32,
  channels: i32,
  radius: i32,
  passes: i32,
  across: usize,
  sums: usize,
): void {
  for (let p = 0; p < passes; p++) {
    if (channels === 4) for (let y = 0; y < height; y++) acrossPixels4(data, across, y * width, width, radius);
    else for (let y = 0; y < height; y++) acrossLine<f32>(data, across, y * width, width, radius);
    down<f32>(data, across, sums, width * channels, height, radius);
  }
}

/** One line across, one value a pixel: a running sum in f64, each mean stored to `across` (a byte's rounded). */
function acrossLine<T>(data: usize, across: usize, start: i32, width: i32, radius: i32): void {
  const inv = 1.0 / <f64>(2 * radius + 1);
  const end = start + width - 1;
  const first = value<T>(data, start);
  const last = value<T>(data, end);
  let sum: f64 = 0;
  for (let k = -radius; k <= radius; k++) sum += value<T>(data, min(end, max(start, start + k)));
  let i = start;
  // The window's ends: clamped while it overhangs the line's start, then inside, then overhanging its end.
  for (let a = min(end, start + radius); i <= a; i++) {
    store<f32>(across + ((<usize>i) << 2), mean<T>(sum, inv));
    sum += value<T>(data, min(end, i + radius + 1)) - first;
  }
  for (; i < end - radius; i++) {
    store<f32>(across + ((<usize>i) << 2), mean<T>(sum, inv));
    sum += value<T>(data, i + radius + 1) - value<T>(data, i - radius);
  }
  for (; i <= end; i++) {
    store<f32>(across + ((<usize>i) << 2), mean<T>(sum, inv));
    sum += last - value<T>(data, i - radius);
  }
}

/** One line across, four f32 channels a pixel, as acrossLine runs each: the four running sums in two f64x2. */
function acrossPixels4(data: usize, across: usize, start: i32, width: i32, radius: i32): void {
  const inv = f64x2.splat(1.0 / <f64>(2 * radius + 1));
  const end = start + width - 1;
  const firstLow = low(data, start);
  const firstHigh = high(data, start);
  const lastLow = low(data, end);
  const lastHigh = high(data, end);
  let sumLow = f64x2.splat(0);
  let sumHigh = f64x2.splat(0);
  for (let k = -radius; k <= radius; k++) {
    const at = min(end, max(start, start + k));
    sumLow = f64x2.add(sumLow, low(data, at));
    sumHigh = f64x2.add(sumHigh, high(data, at));
  }
  let i = start;
  for (let a = min(end, start + radius); i <= a; i++) {
    meanPixel(across, i, sumLow, sumHigh, inv);
    const enter = min(end, i + radius + 1);
    sumLow = f64x2.add(sumLow, f64x2.sub(low(data, enter), firstLow));
    sumHigh = f64x2.add(sumHigh, f64x2.sub(high(data, enter), firstHigh));
  }
  for (; i < end - radius; i++) {
    meanPixel(across, i, sumLow, sumHigh, inv);
    sumLow = f64x2.add(sumLow, f64x2.sub(low(data, i + radius + 1), low(data, i - radius)));
    sumHigh = f64x2.add(sumHigh, f64x2.sub(high(data, i + radius + 1), high(data, i - radius)));
  }
  for (; i <= end; i++) {
    meanPixel(across, i, sumLow, sumHigh, inv);
    sumLow = f64x2.add(sumLow, f64x2.sub(lastLow, low(data, i - radius)));
    sumHigh = f64x2.add(sumHigh, f64x2.sub(lastHigh, high(data, i - radius)));
  }
}

/** Pixel `i`'s four means (its sums times `inv`) to `across`, as f32. */
function meanPixel(across: usize, i: i32, sumLow: v128, sumHigh: v128, inv: v128): void {
  const to = across + ((<usize>i) << 4);
  v128.store64_lane(to, f32x4.demote_f64x2_zero(f64x2.mul(sumLow, inv)), 0);
  v128.store64_lane(to + 8, f32x4.demote_f64x2_zero(f64x2.mul(sumHigh, inv)), 0);
}

/**
 * Down the columns (`line` values a row): every column's running sum in f64 advances a row at a time, two
 * columns a step; the means are written back to `data` (a byte's rounded).
 */
function down<T>(data: usize, across: usize, sums: usize, line: i32, height: i32, radius: i32): void {
  const inv = 1.0 / <f64>(2 * radius + 1);
  memory.fill(sums, 0, (<usize>line) << 3);
  for (let k = -radius; k <= radius; k++) {
    const row = across + ((<usize>(min(height - 1, max(0, k)) * line)) << 2);
    for (let x = 0; x < line; x++) {
      const s = sums + ((<usize>x) << 3);
      store<f64>(s, load<f64>(s) + <f64>load<f32>(row + ((<usize>x) << 2)));
    }
  }
  const invs = f64x2.splat(inv);
  const half = f64x2.splat(0.5);
  for (let y = 0; y < height; y++) {
    const out = y * line;
    const enter = across + ((<usize>(min(height - 1, y + radius + 1) * line)) << 2);
    const leave = across + ((<usize>(max(0, y - radius) * line)) << 2);
    let x = 0;
    for (; x + 2 <= line; x += 2) {
      const s = sums + ((<usize>x) << 3);
      const sum = v128.load(s);
      const scaled = f64x2.mul(sum, invs);
      const to = data + <usize>(out + x) * sizeof<T>();
      if (isFloat<T>()) v128.store64_lane(to, f32x4.demote_f64x2_zero(scaled), 0);
      else {
        const n = i32x4.trunc_sat_f64x2_s_zero(f64x2.add(scaled, half));
        v128.store16_lane(to, i8x16.narrow_i16x8_u(i16x8.narrow_i32x4_u(n, n), n), 0);
      }
      const entering = f64x2.promote_low_f32x4(v128.load64_zero(enter + ((<usize>x) << 2)));
      const leaving = f64x2.promote_low_f32x4(v128.load64_zero(leave + ((<usize>x) << 2)));
      v128.store(s, f64x2.add(sum, f64x2.sub(entering, leaving)));
    }
    for (; x < line; x++) {
      const s = sums + ((<usize>x) << 3);
      const sum = load<f64>(s);
      store<T>(data + <usize>(out + x) * sizeof<T>(), isFloat<T>() ? <T>(sum * inv) : <T>(<i32>(sum * inv + 0.5)));
      store<f64>(s, sum + (<f64>load<f32>(enter + ((<usize>x) << 2)) - <f64>load<f32>(leave + ((<usize>x) << 2))));
    }
  }
}

function value<T>(data: usize, i: i32): f64 {
  return <f64>load<T>(data + <usize>i * sizeof<T>());
}

/** A window's mean as `across` keeps it: a byte's rounded (as `(x + 0.5) | 0` rounds), a float's as it is. */
function mean<T>(sum: f64, inv: f64): f32 {
  return isFloat<T>() ? <f32>(sum * inv) : <f32>(<i32>(sum * inv + 0.5));
}

/** Pixel `i`'s first two channels (of four f32), and its last two, as f64. */
function low(data: usize, i: i32): v128 {
  return f64x2.promote_low_f32x4(v128.load64_zero(data + ((<usize>i) << 4)));
}

function high(data: usize, i: i32): v128 {
  return f64x2.promote_low_f32x4(v128.load64_zero(data + ((<usize>i) << 4) + 8));
}

/**
 * The colour channels of a `sw × sh` RGBA image at `source` scaled up 2× into those of the `ow × oh` RGBA
 * image at `into` (a pixel short of twice where a half size was rounded up): bilinear at half-pixel centres,
 * each output pixel ¾ of its nearest source pixel and ¼ of the next one out, each way, in sixteenths,
 * rounded; the edges repeated. Alpha, and the pixels whose alpha is 0, are left as they are.
 */
export function upsample2x(source: usize, sw: i32, sh: i32, into: usize, ow: i32, oh: i32): void {
  for (let y = 0; y < oh; y++) {
    const i = (y - 1) >> 1;
    const top = source + ((<usize>(clamp(i, sh) * sw)) << 2);
    const bottom = source + ((<usize>(clamp(i + 1, sh) * sw)) << 2);
    const fy = y & 1 ? 1 : 3;
    let o = into + ((<usize>(y * ow)) << 2);
    for (let x = 0; x < ow; x++, o += 4) {
      if (load<u8>(o + 3) === 0) continue;
      const j = (x - 1) >> 1;
      const near = (<usize>clamp(j, sw)) << 2;
      const next = (<usize>clamp(j + 1, sw)) << 2;
      const fx = x & 1 ? 1 : 3;
      const wa = (4 - fx) * (4 - fy);
      const wb = fx * (4 - fy);
      const wc = (4 - fx) * fy;
      const wd = fx * fy;
      for (let c: usize = 0; c < 3; c++) {
        const sum =
          wa * load<u8>(top + near + c) +
          wb * load<u8>(top + next + c) +
          wc * load<u8>(bottom + near + c) +
          wd * load<u8>(bottom + next + c);
        store<u8>(o + c, (sum + 8) >> 4);
      }
    }
  }
}

function clamp(i: i32, n: i32): i32 {
  return min(n - 1, max(0, i));
}

// The per-frame loops of edge refinement and the CPU compositor in WebAssembly, with SIMD where it pays
// (AssemblyScript; `npm run build:kernels` writes kernels.wasm.ts from it, which ../kernels.ts
// instantiates). Each computes exactly what the plain loops in test/unit/video/kernel-parity.test.ts
// compute: the same operations in the same order, in f64 where those use JavaScript numbers, so that every
// engine gives the same bytes.
//
// Memory is the caller's: pointers are byte offsets that ../kernels.ts lays out from `heapBase()`.

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

/**
 * Joint bilateral upsampling (src/pipeline/edge-refinement.ts's refineCoverage, whose tables it takes): the
 * subject's coverage (0–255) of each `ow × oh` output pixel at `out`, the 4 × 4 grid cells around it
 * weighted by distance (`xWeights`, f32, 4 a column; `yWeights`, 4 a row) and by how alike the cell's colour
 * (`low`, RGBA a cell) and the pixel's (`high`, `channels` a pixel) are (`range`, f32, by the sum of
 * |ΔR|+|ΔG|+|ΔB|). `xFirst`/`yFirst` (i32) are each column's and row's first cell, `xInside`/`yInside`
 * (u8) whether it lies in the crop (else 0); `flat` (i16) is flatBlocks's. `columns` is scratch (i32, 5
 * a column).
 */
export function refineCoverage(
  probability: usize,
  gw: i32,
  gh: i32,
  low: usize,
  high: usize,
  channels: i32,
  ow: i32,
  oh: i32,
  xFirst: usize,
  xWeights: usize,
  xInside: usize,
  yFirst: usize,
  yWeights: usize,
  yInside: usize,
  flat: usize,
  range: usize,
  columns: usize,
  out: usize,
): void {
  const bw = gw + 3;
  // Per output column: its block in `flat`, and its 4 cells' columns (clamped to the grid).
  for (let ox = 0; ox < ow; ox++) {
    const first = load<i32>(xFirst + ((<usize>ox) << 2));
    const at = columns + <usize>ox * 20;
    store<i32>(at, min(gw - 1, max(-3, first)) + 3);
    for (let k = 0; k < 4; k++) store<i32>(at + ((<usize>k) << 2) + 4, min(gw - 1, max(0, first + k)));
  }
  for (let oy = 0; oy < oh; oy++) {
    const start = out + <usize>(oy * ow);
    if (!load<u8>(yInside + oy)) {
      memory.fill(start, 0, ow);
      continue;
    }
    const first = load<i32>(yFirst + ((<usize>oy) << 2));
    const flatRow = flat + ((<usize>((min(gh - 1, max(-3, first)) + 3) * bw)) << 1);
    const weights = yWeights + ((<usize>oy) << 4);
    for (let ox = 0; ox < ow; ox++) {
      const o = start + ox;
      if (!load<u8>(xInside + ox)) {
        store<u8>(o, 0);
        continue;
      }
      const at = columns + <usize>ox * 20;
      // All 16 cells alike: every weighting averages to that value (deep inside or outside the subject).
      const v = load<i16>(flatRow + ((<usize>load<i32>(at)) << 1));
      if (v >= 0) {
        store<u8>(o, <u8>v);
        continue;
      }
      const p = high + <usize>((oy * ow + ox) * channels);
      const r = <i32>load<u8>(p);
      const g = <i32>load<u8>(p + 1);
      const b = <i32>load<u8>(p + 2);
      const wx = xWeights + ((<usize>ox) << 4);
      let sum: f64 = 0;
      let total: f64 = 0;
      for (let j = 0; j < 4; j++) {
        const wy = <f64>load<f32>(weights + ((<usize>j) << 2));
        const base = <usize>(min(gh - 1, max(0, first + j)) * gw);
        for (let i = 0; i < 4; i++) {
          const cell = base + <usize>load<i32>(at + ((<usize>i) << 2) + 4);
          const q = low + (cell << 2);
          const d = abs(<i32>load<u8>(q) - r) + abs(<i32>load<u8>(q + 1) - g) + abs(<i32>load<u8>(q + 2) - b);
          const w = wy * <f64>load<f32>(wx + ((<usize>i) << 2)) * <f64>load<f32>(range + ((<usize>d) << 2));
          sum += w * <f64>load<u8>(probability + cell);
          total += w;
        }
      }
      store<u8>(o, <u8>(<i32>(sum / total + 0.5)));
    }
  }
}

/**
 * For each 4 × 4 block of cells (clamped to the grid) that starts at (x, y), x and y from −3 to the grid's
 * last cell, at `flat` + 2 × ((y + 3)(gw + 3) + x + 3), i16: its probability where all 16 cells have the
 * same one, else −1. Across first (per grid row and block start, from two overlapping alike pairs, a row
 * read with 3 copies of its end cells on either side), then down. `scratch`: i16, (gw + 3) × gh + 2gw + 11.
 */
export function flatBlocks(probability: usize, gw: i32, gh: i32, flat: usize, scratch: usize): void {
  const bw = gw + 3;
  const across = scratch;
  const line = across + ((<usize>(bw * gh)) << 1);
  const pairs = line + ((<usize>(gw + 6)) << 1);
  for (let y = 0; y < gh; y++) {
    const row = probability + <usize>(y * gw);
    const first = <i16>load<u8>(row);
    const last = <i16>load<u8>(row + <usize>(gw - 1));
    for (let s = 0; s < 3; s++) {
      store<i16>(line + ((<usize>s) << 1), first);
      store<i16>(line + ((<usize>(gw + 3 + s)) << 1), last);
    }
    for (let x = 0; x < gw; x++) store<i16>(line + ((<usize>(x + 3)) << 1), <i16>load<u8>(row + x));
    for (let s = 0; s < gw + 5; s++) {
      const a = load<i16>(line + ((<usize>s) << 1));
      store<i16>(pairs + ((<usize>s) << 1), a === load<i16>(line + ((<usize>(s + 1)) << 1)) ? a : -1);
    }
    const to = across + ((<usize>(y * bw)) << 1);
    for (let s = 0; s < bw; s++) {
      const a = load<i16>(pairs + ((<usize>s) << 1));
      store<i16>(to + ((<usize>s) << 1), a === load<i16>(pairs + ((<usize>(s + 2)) << 1)) ? a : -1);
    }
  }
  for (let by = -3; by < gh; by++) {
    const r0 = across + ((<usize>(max(0, by) * bw)) << 1);
    const r1 = across + ((<usize>(min(gh - 1, max(0, by + 1)) * bw)) << 1);
    const r2 = across + ((<usize>(min(gh - 1, max(0, by + 2)) * bw)) << 1);
    const r3 = across + ((<usize>(min(gh - 1, by + 3) * bw)) << 1);
    const to = flat + ((<usize>((by + 3) * bw)) << 1);
    for (let s = 0; s < bw; s++) {
      const at = (<usize>s) << 1;
      const v = load<i16>(r0 + at);
      const alike = v >= 0 && v === load<i16>(r1 + at) && v === load<i16>(r2 + at) && v === load<i16>(r3 + at);
      store<i16>(to + at, alike ? v : -1);
    }
  }
}

/**
 * One frame of temporal smoothing (src/video/temporal-smoothing.ts): this frame's luma from `guide` (RGBA)
 * into `luma` (f32), its change from the last frame's (`before`, f32) into `change` (f64), the change's
 * 3 × 3 mean into `motion` (f32, `across` f64 scratch), then each cell's smoothed probability: `state`
 * (f32) moves towards `probability` by 1 − keep·(1 − t), t rising from 0 at `still` to 1 at `moving`
 * (motion in 8-bit levels), and its byte (rounded) goes to `out`.
 */
export function smooth(
  probability: usize,
  guide: usize,
  width: i32,
  height: i32,
  keep: f64,
  still: f64,
  moving: f64,
  state: usize,
  before: usize,
  luma: usize,
  change: usize,
  across: usize,
  motion: usize,
  out: usize,
): void {
  const n = <usize>(width * height);
  for (let i: usize = 0; i < n; i++) {
    const p = guide + (i << 2);
    store<f32>(luma + (i << 2), <f32>(0.299 * <f64>load<u8>(p) + 0.587 * <f64>load<u8>(p + 1) + 0.114 * <f64>load<u8>(p + 2)));
    store<f64>(change + (i << 3), abs(<f64>load<f32>(luma + (i << 2)) - <f64>load<f32>(before + (i << 2))));
  }
  mean3x3(change, width, height, across, motion);
  const span = moving - still;
  for (let i: usize = 0; i < n; i++) {
    const t = min(1.0, max(0.0, (<f64>load<f32>(motion + (i << 2)) - still) / span));
    const alpha = 1 - keep * (1 - t);
    const was = <f64>load<f32>(state + (i << 2));
    const s = was + alpha * (<f64>load<u8>(probability + i) - was);
    store<f32>(state + (i << 2), <f32>s);
    store<u8>(out + i, <u8>(<i32>(s + 0.5)));
  }
}

/** The mean (f32, at `out`) of each cell's 3 × 3 neighbourhood that lies inside the grid, of f64 `values`: sums of 3 across (f64 `across`), then of those down. */
export function mean3x3(values: usize, width: i32, height: i32, across: usize, out: usize): void {
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (<usize>(y * width + x)) << 3;
      const left = x > 0 ? load<f64>(values + i - 8) : 0;
      const right = x < width - 1 ? load<f64>(values + i + 8) : 0;
      store<f64>(across + i, left + load<f64>(values + i) + right);
    }
  }
  const line = (<usize>width) << 3;
  for (let y = 0; y < height; y++) {
    const rows = 1 + (y > 0 ? 1 : 0) + (y < height - 1 ? 1 : 0);
    for (let x = 0; x < width; x++) {
      const i = (<usize>(y * width + x)) << 3;
      const columns = 1 + (x > 0 ? 1 : 0) + (x < width - 1 ? 1 : 0);
      const up = y > 0 ? load<f64>(across + i - line) : 0;
      const down = y < height - 1 ? load<f64>(across + i + line) : 0;
      store<f32>(out + (i >> 1), <f32>((load<f64>(across + i) + up + down) / <f64>(rows * columns)));
    }
  }
}

/**
 * The picture at a grid's resolution (src/video/video-model.ts's guideAtGrid, whose tables it takes): each
 * of the `gw × gh` cells (RGBA at `out`) reads `data` (RGBA, `width` pixels a row) bilinearly between the
 * pixels `xFirst` and `xFirst + xStep` (i32; −1: outside the crop, black) at weight `xWeight` (f32) across,
 * and likewise down; rounded as a clamped byte array rounds (half to even). Alpha is 255.
 */
export function guideAtGrid(
  data: usize,
  width: i32,
  gw: i32,
  gh: i32,
  xFirst: usize,
  xStep: usize,
  xWeight: usize,
  yFirst: usize,
  yStep: usize,
  yWeight: usize,
  out: usize,
): void {
  for (let y = 0; y < gh; y++) {
    const fy = load<i32>(yFirst + ((<usize>y) << 2));
    let o = out + ((<usize>(y * gw)) << 2);
    if (fy < 0) {
      for (let x = 0; x < gw; x++, o += 4) store<u32>(o, 0xff000000);
      continue;
    }
    const wy = <f64>load<f32>(yWeight + ((<usize>y) << 2));
    const row0 = data + ((<usize>(fy * width)) << 2);
    const row1 = data + ((<usize>((fy + load<i32>(yStep + ((<usize>y) << 2))) * width)) << 2);
    for (let x = 0; x < gw; x++, o += 4) {
      const fx = load<i32>(xFirst + ((<usize>x) << 2));
      if (fx < 0) {
        store<u32>(o, 0xff000000);
        continue;
      }
      const wx = <f64>load<f32>(xWeight + ((<usize>x) << 2));
      const a = row0 + ((<usize>fx) << 2);
      const c = row1 + ((<usize>fx) << 2);
      const step = (<usize>load<i32>(xStep + ((<usize>x) << 2))) << 2;
      for (let k: usize = 0; k < 3; k++) {
        const va = <f64>load<u8>(a + k);
        const vc = <f64>load<u8>(c + k);
        const top = va + wx * (<f64>load<u8>(a + step + k) - va);
        const bottom = vc + wx * (<f64>load<u8>(c + step + k) - vc);
        store<u8>(o + k, <u8>(<i32>clampByte(nearest(top + wy * (bottom - top)))));
      }
      store<u8>(o + 3, 255);
    }
  }
}

function clampByte(v: f64): f64 {
  return min(255.0, max(0.0, v));
}

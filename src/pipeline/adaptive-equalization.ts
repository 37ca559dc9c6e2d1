// "Adaptive Equalization": the reference's skimage.exposure.equalize_adapthist(img / 255, clip_limit=0.03)
// (scikit-image 0.19), times 255, truncated to 8 bits.
//
// For a colour image scikit-image converts to HSV (float32), runs CLAHE on the value channel at 14-bit
// precision, and converts back. The reference passes OpenCV's BGR image, so scikit-image's "RGB" is
// B, G, R: the conversions below take the channels in that order so that every float32 operation
// rounds as it does in the reference. A gray (1-channel) plane stands for three equal channels, for which
// the HSV round trip returns the equalised value itself.
import { densePlane, type ImagePlane } from './image-plane.js';

const f32 = Math.fround;
const GRAY_LEVELS = 1 << 14;
const BINS = 256;
const CLIP_LIMIT = 0.03;

export function equalizeAdaptive(src: ImagePlane): ImagePlane {
  const { width, height } = src;
  const n = width * height;
  const gray = src.channels === 1;
  // HSV of each pixel in float32; only V goes through CLAHE, H and S come back unchanged.
  const hue = gray ? null : new Float32Array(n);
  const sat = gray ? null : new Float32Array(n);
  const value = new Float32Array(n);
  for (let y = 0, p = 0; y < height; y++) {
    let i = src.offset + y * src.rowStride;
    for (let x = 0; x < width; x++, i += src.channels, p++) {
      if (gray) {
        value[p] = f32(src.data[i]! / 255);
        continue;
      }
      // scikit-image's "r, g, b" = OpenCV's B, G, R.
      const r = f32(src.data[i + 2]! / 255);
      const g = f32(src.data[i + 1]! / 255);
      const b = f32(src.data[i]! / 255);
      const hsv = rgbToHsv(r, g, b);
      hue![p] = hsv[0];
      sat![p] = hsv[1];
      value[p] = hsv[2];
    }
  }
  const equalized = claheOnValue(value, width, height);
  const cn = gray ? 1 : 3;
  const out = new Uint8Array(n * cn);
  for (let p = 0; p < n; p++) {
    if (gray) {
      out[p] = Math.trunc(f32(equalized[p]! * 255));
      continue;
    }
    const [r, g, b] = hsvToRgb(hue![p]!, sat![p]!, equalized[p]!);
    out[p * 3] = Math.trunc(f32(b * 255));
    out[p * 3 + 1] = Math.trunc(f32(g * 255));
    out[p * 3 + 2] = Math.trunc(f32(r * 255));
  }
  return densePlane(out, width, height, cn);
}

// skimage.color.rgb2hsv for one float32 pixel.
function rgbToHsv(r: number, g: number, b: number): [number, number, number] {
  const v = Math.max(r, g, b);
  const delta = f32(v - Math.min(r, g, b));
  const s = delta === 0 ? 0 : f32(delta / v);
  if (delta === 0) return [0, s, v];
  // Later assignments win, as in the reference's three masked assignments.
  let h = 0;
  if (r === v) h = f32(f32(g - b) / delta);
  if (g === v) h = f32(2 + f32(f32(b - r) / delta));
  if (b === v) h = f32(4 + f32(f32(r - g) / delta));
  return [pyModOne(f32(h / 6)), s, v];
}

// numpy's float32 remainder x % 1.0 (result takes the divisor's sign).
function pyModOne(x: number): number {
  let m = x % 1;
  if (m !== 0 && m < 0) m = f32(m + 1);
  return m === 0 ? 0 : f32(m);
}

// skimage.color.hsv2rgb for one float32 pixel.
function hsvToRgb(h: number, s: number, v: number): [number, number, number] {
  const h6 = f32(h * 6);
  const hi = Math.floor(h6);
  const f = f32(h6 - hi);
  const p = f32(v * f32(1 - s));
  const q = f32(v * f32(1 - f32(f * s)));
  const t = f32(v * f32(1 - f32(f32(1 - f) * s)));
  switch (((hi % 6) + 6) % 6) {
    case 0:
      return [v, t, p];
    case 1:
      return [q, v, p];
    case 2:
      return [p, v, t];
    case 3:
      return [p, q, v];
    case 4:
      return [t, p, v];
    default:
      return [v, p, q];
  }
}

/** equalize_adapthist's body on a 2-D float32 image in [0, 1]; returns float32 values in [0, 1]. */
function claheOnValue(value: Float32Array, width: number, height: number): Float32Array {
  const n = value.length;
  // img_as_uint: float32 multiply by 65535, round half to even.
  const u16 = new Float64Array(n);
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = roundHalfEvenInt(f32(value[i]! * 65535));
    u16[i] = v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  // rescale_intensity(out_range=(0, 2^14 - 1)) in float64, then np.round to uint16.
  const image = new Uint16Array(n);
  for (let i = 0; i < n; i++) {
    const scaled = min === max ? Math.min(Math.max(u16[i]!, 0), GRAY_LEVELS - 1) : ((u16[i]! - min) / (max - min)) * (GRAY_LEVELS - 1) + 0;
    image[i] = roundHalfEvenInt(scaled);
  }
  const kh = Math.max(Math.floor(height / 8), 1);
  const kw = Math.max(Math.floor(width / 8), 1);
  const result = clahe(image, width, height, kh, kw);
  // result.astype(float32), then rescale_intensity to [0, 1] in float32.
  let rmin = Infinity;
  let rmax = -Infinity;
  for (let i = 0; i < n; i++) {
    if (result[i]! < rmin) rmin = result[i]!;
    if (result[i]! > rmax) rmax = result[i]!;
  }
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const x = result[i]!;
    out[i] = rmin === rmax ? Math.min(Math.max(x, 0), 1) : f32(f32(f32(f32(x - rmin) / f32(rmax - rmin)) * 1) + 0);
  }
  return out;
}

/** scikit-image's _clahe on a 14-bit image (kernel kh × kw, 256 bins, clip limit 0.03). */
function clahe(image: Uint16Array, width: number, height: number, kh: number, kw: number): Uint16Array {
  const padTop = kh >> 1;
  const padLeft = kw >> 1;
  const padBottom = ((kh - (height % kh)) % kh) + Math.ceil(kh / 2);
  const padRight = ((kw - (width % kw)) % kw) + Math.ceil(kw / 2);
  const ph = height + padTop + padBottom;
  const pw = width + padLeft + padRight;
  const binSize = 1 + Math.floor(GRAY_LEVELS / BINS);
  // The padded (numpy 'reflect', edge not repeated) image, binned.
  const padded = new Uint16Array(ph * pw);
  for (let y = 0; y < ph; y++) {
    const sy = reflect(y - padTop, height);
    for (let x = 0; x < pw; x++) padded[y * pw + x] = Math.floor(image[sy * width + reflect(x - padLeft, width)]! / binSize);
  }
  const histRows = Math.trunc(ph / kh) - 1;
  const histCols = Math.trunc(pw / kw) - 1;
  const npix = kh * kw;
  const clim = Math.max(Math.trunc(CLIP_LIMIT * npix), 1);
  // One mapping per histogram block, with a one-block edge border (numpy pad mode 'edge').
  const mapRows = histRows + 2;
  const mapCols = histCols + 2;
  const maps = new Int32Array(mapRows * mapCols * BINS);
  const hist = new Float64Array(BINS);
  for (let by = 0; by < histRows; by++) {
    for (let bx = 0; bx < histCols; bx++) {
      hist.fill(0);
      const y0 = (kh >> 1) + by * kh;
      const x0 = (kw >> 1) + bx * kw;
      for (let y = y0; y < y0 + kh; y++) for (let x = x0; x < x0 + kw; x++) hist[padded[y * pw + x]!]!++;
      clipHistogram(hist, clim);
      let cum = 0;
      const scale = (GRAY_LEVELS - 1) / npix;
      for (let i = 0; i < BINS; i++) {
        cum += hist[i]!;
        maps[((by + 1) * mapCols + (bx + 1)) * BINS + i] = Math.trunc(Math.min(cum * scale + 0, GRAY_LEVELS - 1));
      }
    }
  }
  for (let my = 0; my < mapRows; my++) {
    for (let mx = 0; mx < mapCols; mx++) {
      const sy = Math.min(Math.max(my, 1), histRows);
      const sx = Math.min(Math.max(mx, 1), histCols);
      if (sy === my && sx === mx) continue;
      maps.copyWithin((my * mapCols + mx) * BINS, (sy * mapCols + sx) * BINS, (sy * mapCols + sx + 1) * BINS);
    }
  }
  const out = new Uint16Array(width * height);
  for (let y = padTop; y < padTop + height; y++) {
    const ty = Math.trunc(y / kh);
    const fy = (y % kh) / kh;
    for (let x = padLeft; x < padLeft + width; x++) {
      const tx = Math.trunc(x / kw);
      const fx = (x % kw) / kw;
      const bin = padded[y * pw + x]!;
      // The four neighbouring mappings, weighted as the reference sums them: edges (0,0), (0,1), (1,0),
      // (1,1) over (row, column), each product in float64 rounded to float32, accumulated in float32.
      let acc = 0;
      acc = f32(acc + f32(maps[(ty * mapCols + tx) * BINS + bin]! * ((1 - fx) * (1 - fy))));
      acc = f32(acc + f32(maps[(ty * mapCols + tx + 1) * BINS + bin]! * (fx * (1 - fy))));
      acc = f32(acc + f32(maps[((ty + 1) * mapCols + tx) * BINS + bin]! * ((1 - fx) * fy)));
      acc = f32(acc + f32(maps[((ty + 1) * mapCols + tx + 1) * BINS + bin]! * (fx * fy)));
      out[(y - padTop) * width + (x - padLeft)] = Math.trunc(acc);
    }
  }
  return out;
}

/** scikit-image's clip_histogram: clip at `limit` and redistribute the excess, exactly as it loops. */
function clipHistogram(hist: Float64Array, limit: number): void {
  const size = hist.length;
  let excess = 0;
  for (let i = 0; i < size; i++) {
    if (hist[i]! > limit) {
      excess += hist[i]! - limit;
      hist[i] = limit;
    }
  }
  const binIncrement = Math.floor(excess / size);
  const upper = limit - binIncrement;
  for (let i = 0; i < size; i++) {
    if (hist[i]! < upper) {
      hist[i]! += binIncrement;
      excess -= binIncrement;
    }
  }
  // A second pass, as the reference computes this mask after the increment above.
  for (let i = 0; i < size; i++) {
    if (hist[i]! >= upper && hist[i]! < limit) {
      excess += hist[i]! - limit;
      hist[i] = limit;
    }
  }
  while (excess > 0) {
    const previous = excess;
    for (let index = 0; index < size; index++) {
      let under = 0;
      for (let i = 0; i < size; i++) if (hist[i]! < limit) under++;
      const step = Math.max(1, Math.floor(under / excess));
      for (let i = index; i < size; i += step) {
        if (hist[i]! < limit) {
          hist[i]!++;
          excess--;
        }
      }
      if (excess <= 0) break;
    }
    if (previous === excess) break;
  }
}

function reflect(i: number, size: number): number {
  if (size === 1) return 0;
  const period = 2 * (size - 1);
  let m = i % period;
  if (m < 0) m += period;
  return m < size ? m : period - m;
}

function roundHalfEvenInt(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

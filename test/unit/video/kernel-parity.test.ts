// The video path's per-frame kernels against plain reference implementations of the same arithmetic
// (the straightforward loops they replaced): the fast ones must give the same bytes.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { flatBlocks, REFINE, refineCoverage } from '../../../src/video/edge-refinement.js';
import { gridMap, subjectGrid, type GridMap } from '../../../src/video/fast-path.js';
import { motionOf, MOTION, TemporalSmoother } from '../../../src/video/temporal-smoothing.js';
import { boxBlur, upsample2x } from '../../../src/pipeline/kernels.js';
import { classIdMapping, type Logits } from '../../../src/pipeline/index.js';
import { frameMeta } from './frame-meta.js';
import { seededRandom as random } from '../../helpers/seeded-random.js';

/** The first index where two byte arrays differ, −1 where they are the same (faster than toEqual on large arrays). */
function firstDifference(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

// ---- The references: each computes every output the plain way. ----

const RANGE = Float32Array.from({ length: 766 }, (_, d) => Math.max(1e-4, Math.exp((-d * d) / (2 * REFINE.rangeSigma ** 2))));

function referenceRefine(
  grid: { probability: Uint8Array; width: number; height: number },
  map: GridMap,
  guideLow: Uint8ClampedArray,
  guideHigh: Uint8ClampedArray,
  ow: number,
  oh: number,
  frameWidth: number,
  frameHeight: number,
): Uint8Array {
  const { probability, width: gw, height: gh } = grid;
  const result = new Uint8Array(ow * oh);
  const axis = (count: number, frameSize: number, scale: number, offset: number, lo: number, hi: number) => {
    const first = new Int32Array(count);
    const weights = new Float32Array(count * 4);
    const inside = new Uint8Array(count);
    const s2 = 2 * REFINE.spatialSigma ** 2;
    for (let o = 0; o < count; o++) {
      const f = ((o + 0.5) * frameSize) / count;
      inside[o] = f >= lo && f < hi ? 1 : 0;
      const g = f * scale + offset - 0.5;
      const base = Math.floor(g) - 1;
      first[o] = base;
      for (let k = 0; k < 4; k++) weights[o * 4 + k] = Math.exp((-(base + k - g) * (base + k - g)) / s2);
    }
    return { first, weights, inside };
  };
  const { crop } = map;
  const xs = axis(ow, frameWidth, map.scaleX, map.offsetX, crop.x, crop.x + crop.width);
  const ys = axis(oh, frameHeight, map.scaleY, map.offsetY, crop.y, crop.y + crop.height);
  for (let oy = 0; oy < oh; oy++) {
    for (let ox = 0; ox < ow; ox++) {
      const o = oy * ow + ox;
      if (!xs.inside[ox] || !ys.inside[oy]) continue;
      const [r, g, b] = [guideHigh[o * 4]!, guideHigh[o * 4 + 1]!, guideHigh[o * 4 + 2]!];
      let sum = 0;
      let total = 0;
      for (let j = 0; j < 4; j++) {
        const row = Math.min(gh - 1, Math.max(0, ys.first[oy]! + j));
        for (let i = 0; i < 4; i++) {
          const cell = row * gw + Math.min(gw - 1, Math.max(0, xs.first[ox]! + i));
          const q = cell * 4;
          const d = Math.abs(guideLow[q]! - r) + Math.abs(guideLow[q + 1]! - g) + Math.abs(guideLow[q + 2]! - b);
          const w = ys.weights[oy * 4 + j]! * xs.weights[ox * 4 + i]! * RANGE[d]!;
          sum += w * probability[cell]!;
          total += w;
        }
      }
      result[o] = (sum / total + 0.5) | 0;
    }
  }
  return result;
}

function referenceMotion(before: Float32Array, after: Float32Array, width: number, height: number): Float32Array {
  const out = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let sum = 0;
      let count = 0;
      for (let yy = Math.max(0, y - 1); yy <= Math.min(height - 1, y + 1); yy++) {
        for (let xx = Math.max(0, x - 1); xx <= Math.min(width - 1, x + 1); xx++) {
          sum += Math.abs(after[yy * width + xx]! - before[yy * width + xx]!);
          count++;
        }
      }
      out[y * width + x] = sum / count;
    }
  }
  return out;
}

/** The smoother as separate luma, motion and blend passes. */
class ReferenceSmoother {
  state: Float32Array | null = null;
  luma: Float32Array | null = null;

  smooth(probability: Uint8Array, guide: Uint8ClampedArray, width: number, height: number, strength: number): Uint8Array {
    const n = width * height;
    const luma = new Float32Array(n);
    for (let i = 0; i < n; i++) luma[i] = 0.299 * guide[i * 4]! + 0.587 * guide[i * 4 + 1]! + 0.114 * guide[i * 4 + 2]!;
    if (!this.state) {
      [this.state, this.luma] = [Float32Array.from(probability), luma];
      return probability.slice();
    }
    const motion = referenceMotion(this.luma!, luma, width, height);
    const result = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const t = Math.min(1, Math.max(0, (motion[i]! - MOTION.still) / (MOTION.moving - MOTION.still)));
      const alpha = 1 - Math.min(1, Math.max(0, strength)) * (1 - t);
      this.state[i] = this.state[i]! + alpha * (probability[i]! - this.state[i]!);
      result[i] = (this.state[i]! + 0.5) | 0;
    }
    this.luma = luma;
    return result;
  }
}

function referenceSubjectGrid(logits: Logits, classCount: number, backgroundClassId: number, confidence: number) {
  const { channels: C, width, height, data } = logits;
  const n = width * height;
  const [probability, classIds] = [new Uint8Array(n), new Uint8Array(n)];
  const classOf = classIdMapping(C, classCount, backgroundClassId);
  const threshold = confidence / 100;
  let bgChannel = -1;
  for (let c = 0; c < C; c++) if (classOf[c] === backgroundClassId && C > 1 && C === classCount) bgChannel = c;
  for (let i = 0; i < n; i++) {
    let subject: number;
    let id: number;
    if (C === 1) {
      subject = 1 / (1 + Math.exp(-data[i]!));
      id = subject >= threshold ? classOf[0]! : backgroundClassId;
    } else {
      let max = -Infinity;
      let arg = 0;
      for (let c = 0; c < C; c++) {
        if (data[c * n + i]! > max) [max, arg] = [data[c * n + i]!, c];
      }
      let sum = 0;
      for (let c = 0; c < C; c++) sum += Math.exp(data[c * n + i]! - max);
      const top = 1 / sum;
      id = top >= threshold ? classOf[arg]! : backgroundClassId;
      subject = bgChannel >= 0 ? 1 - Math.exp(data[bgChannel * n + i]! - max) / sum : top;
      if (top < threshold) subject = Math.min(subject, 0.5 * (top / threshold));
    }
    probability[i] = Math.round(subject * 255);
    classIds[i] = id;
  }
  return { probability, classIds };
}

/** The box blur as one running sum per line, across then down, each line copied with its ends repeated. */
function referenceBoxBlur(data: Uint8Array | Float32Array, width: number, height: number, radius: number, passes: number): void {
  const line = new Float32Array(Math.max(width, height) + 2 * radius + 1);
  const inv = 1 / (2 * radius + 1);
  for (let p = 0; p < passes; p++) {
    for (const [count, length, stride, step] of [
      [height, width, width, 1],
      [width, height, 1, width],
    ] as const) {
      for (let l = 0; l < count; l++) {
        const start = l * stride;
        for (let i = 0; i < radius; i++) line[i] = data[start]!;
        for (let i = 0; i < length; i++) line[radius + i] = data[start + i * step]!;
        for (let i = 0; i <= radius; i++) line[radius + length + i] = data[start + (length - 1) * step]!;
        let sum = 0;
        for (let i = 0; i < 2 * radius + 1; i++) sum += line[i]!;
        for (let i = 0; i < length; i++) {
          data[start + i * step] = data instanceof Uint8Array ? (sum * inv + 0.5) | 0 : sum * inv;
          sum += line[i + 2 * radius + 1]! - line[i]!;
        }
      }
    }
  }
}

// ---- Inputs. ----

const meta = frameMeta;

/**
 * A camera-like scene: a dark disc (the subject) on a light wall, with sensor noise, sampled at `w × h`
 * over a `frameWidth × frameHeight` frame; and the model's view of it on a grid, a soft-edged probability.
 */
function discScene(frameWidth: number, frameHeight: number, seed: number) {
  const next = random(seed);
  const [cx, cy, radius] = [frameWidth * 0.5, frameHeight * 0.55, frameHeight * 0.3];
  const image = (w: number, h: number) => {
    const rgba = new Uint8ClampedArray(w * h * 4);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const inside = Math.hypot(((x + 0.5) / w) * frameWidth - cx, ((y + 0.5) / h) * frameHeight - cy) < radius;
        const base = inside ? [60, 40, 30] : [200, 190, 170];
        for (let c = 0; c < 3; c++) rgba[(y * w + x) * 4 + c] = base[c]! + (next() - 0.5) * 24;
        rgba[(y * w + x) * 4 + 3] = 255;
      }
    }
    return rgba;
  };
  const probability = (gw: number, gh: number) => {
    const p = new Uint8Array(gw * gh);
    for (let y = 0; y < gh; y++) {
      for (let x = 0; x < gw; x++) {
        const d = Math.hypot(((x + 0.5) / gw) * frameWidth - cx, ((y + 0.5) / gh) * frameHeight - cy) - radius;
        p[y * gw + x] = Math.round(255 / (1 + Math.exp(d / (frameHeight / 150))));
      }
    }
    return p;
  };
  return { image, probability };
}

describe('refineCoverage matches the plain joint bilateral upsampling byte for byte', () => {
  test.each([
    [640, 480, 256, 256],
    [1280, 720, 256, 256],
    [640, 480, 256, 144],
  ])('a disc with soft edges on a noisy picture, %i×%i frame, %i×%i grid', (fw, fh, gw, gh) => {
    const scene = discScene(fw, fh, fw + gw);
    const grid = { probability: scene.probability(gw, gh), width: gw, height: gh };
    const map = gridMap(
      meta({ originalWidth: fw, originalHeight: fh, cropWidth: fw, cropHeight: fh, inputWidth: gw, inputHeight: gh }),
      gw,
      gh,
    );
    const [low, high] = [scene.image(gw, gh), scene.image(fw / 2, fh / 2)];
    const expected = referenceRefine(grid, map, low, high, fw / 2, fh / 2, fw, fh);
    const actual = refineCoverage(grid, map, low, high, fw / 2, fh / 2, fw, fh);
    expect(firstDifference(actual, expected)).toBe(-1);
    // Both sides of the edge are there: the test covers the flat blocks and the weighted ones.
    const count = (keep: (v: number) => boolean) => actual.reduce((n, v) => n + (keep(v) ? 1 : 0), 0);
    expect(count((v) => v === 0)).toBeGreaterThan(actual.length / 4);
    expect(count((v) => v === 255)).toBeGreaterThan(actual.length / 20);
    expect(count((v) => v > 0 && v < 255)).toBeGreaterThan(100);
  });

  test('random grids, levels, guides, letterboxes and crops', () => {
    const next = random(7);
    const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
    for (let trial = 0; trial < 60; trial++) {
      const [gw, gh] = [int(1, 24), int(1, 24)];
      const [fw, fh] = [int(1, 60), int(1, 60)];
      const [ow, oh] = [int(1, 40), int(1, 40)];
      // Few levels in blobs (so that many blocks are flat) or every cell random.
      const levels = [0, 255, int(0, 255), int(0, 255)].slice(0, int(1, 4));
      const blob = int(1, 6);
      const probability = new Uint8Array(gw * gh);
      for (let i = 0; i < probability.length; i++) {
        const [x, y] = [i % gw, Math.floor(i / gw)];
        probability[i] = trial % 3 === 0 ? int(0, 255) : levels[(Math.floor(x / blob) * 7 + Math.floor(y / blob) * 3) % levels.length]!;
      }
      const [padTop, padLeft] = [int(0, 3), int(0, 3)];
      const [cropX, cropY] = [int(0, fw - 1), int(0, fh - 1)];
      const m = meta({
        originalWidth: fw,
        originalHeight: fh,
        cropX,
        cropY,
        cropWidth: int(1, fw - cropX),
        cropHeight: int(1, fh - cropY),
        inputWidth: gw + padLeft + int(0, 3),
        inputHeight: gh + padTop + int(0, 3),
        padLeft,
        padTop,
      });
      m.padRight = m.inputWidth - gw - padLeft;
      m.padBottom = m.inputHeight - gh - padTop;
      const map = gridMap(m, gw, gh);
      const guide = (n: number) => Uint8ClampedArray.from({ length: n * 4 }, () => int(0, 255));
      const [low, high] = [guide(gw * gh), guide(ow * oh)];
      const grid = { probability, width: gw, height: gh };
      expect(refineCoverage(grid, map, low, high, ow, oh, fw, fh), `trial ${trial}`).toEqual(
        referenceRefine(grid, map, low, high, ow, oh, fw, fh),
      );
    }
  });

  test('flatBlocks: a block of 16 alike cells (clamped at the border) has their value, any other −1', () => {
    // 3 × 5 grid: rows 0–3 are 9 9 4, row 4 is 7 7 7. Block starts −3…2 across, −3…4 down.
    const flat = flatBlocks(Uint8Array.from([9, 9, 4, 9, 9, 4, 9, 9, 4, 9, 9, 4, 7, 7, 7]), 3, 5);
    const at = (x: number, y: number) => flat[(y + 3) * 6 + x + 3];
    // Across, start −3 covers the clamped columns 0 0 0 0; −2: 0 0 0 1; −1: 0 0 1 2; 2: 2 2 2 2 (rows alike).
    expect([at(-3, -3), at(-2, 0), at(-1, 0), at(2, 0)]).toEqual([9, 9, -1, 4]);
    // Down, start 1 covers rows 1–4 (row 4 differs); 4 covers row 4 four times.
    expect([at(2, 1), at(-3, 1), at(0, 4), at(-3, 0)]).toEqual([-1, -1, 7, 9]);
    expect(flat.length).toBe(6 * 8);
  });
});

describe('temporal smoothing matches the plain passes', () => {
  test('motionOf is the 3 × 3 mean up to float rounding', () => {
    const next = random(3);
    for (const [w, h] of [
      [1, 1],
      [1, 5],
      [7, 1],
      [2, 2],
      [37, 23],
    ] as const) {
      const before = Float32Array.from({ length: w * h }, () => next() * 255);
      const after = Float32Array.from({ length: w * h }, () => next() * 255);
      const actual = motionOf(before, after, w, h, new Float32Array(w * h));
      const expected = referenceMotion(before, after, w, h);
      for (let i = 0; i < w * h; i++) expect(Math.abs(actual[i]! - expected[i]!)).toBeLessThan(1e-4);
    }
  });

  test('over a sequence of moving and still frames the smoothed mask is the same, up to a rounding tie', () => {
    const next = random(11);
    const [w, h] = [48, 36];
    const [fast, slow] = [new TemporalSmoother(), new ReferenceSmoother()];
    let [same, total, worst] = [0, 0, 0];
    for (let frame = 0; frame < 30; frame++) {
      const shift = frame < 10 ? frame : frame < 20 ? 10 : 30 - frame;
      const guide = new Uint8ClampedArray(w * h * 4);
      const probability = new Uint8Array(w * h);
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
          const inside = Math.hypot(x - 14 - shift, y - 18) < 9;
          const v = (inside ? 50 : 190) + (next() - 0.5) * 10;
          guide.fill(v, (y * w + x) * 4, (y * w + x) * 4 + 3);
          probability[y * w + x] = inside ? 230 + Math.floor(next() * 25) : Math.floor(next() * 20);
        }
      }
      const [a, b] = [fast.smooth(probability, guide, w, h, 0.8), slow.smooth(probability, guide, w, h, 0.8)];
      for (let i = 0; i < a.length; i++) {
        worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
        same += a[i] === b[i] ? 1 : 0;
        total++;
      }
    }
    expect(worst).toBeLessThanOrEqual(1);
    expect(same / total).toBeGreaterThan(0.999);
  });
});

describe('subjectGrid matches the plain softmax and sigmoid', () => {
  const special = [Infinity, -Infinity, NaN, 0, 0, 1e-9, -1e-9, 80, -80, 700, -700];
  const logits = (channels: number, n: number, seed: number): Logits => {
    const next = random(seed);
    const data = Float32Array.from({ length: channels * n }, (_, i) =>
      i % 17 === 0 ? special[Math.floor(next() * special.length)]! : i % 5 === 0 ? Math.round((next() - 0.5) * 4) : (next() - 0.5) * 24,
    );
    return { data, channels, width: n, height: 1 };
  };
  test('one channel: every byte step and the class threshold, at their logits and the float32 values next to them', () => {
    // The logits where 255·σ crosses k − ½ (and the class threshold's), rounded to float32, and 4 float32
    // steps either side of each; bucket ends; then plain random logits.
    const points: number[] = [];
    const confidences = [0, 0.01, 12.5, 37, 50, 99.99, 100];
    const steps = Array.from({ length: 255 }, (_, j) => Math.log((j + 0.5) / 255 / (1 - (j + 0.5) / 255)));
    const cuts = confidences.map((c) => Math.log(c / 100 / (1 - c / 100)));
    const bits = new Float32Array(1);
    const asInt = new Int32Array(bits.buffer);
    for (const t of [...steps, ...cuts.filter(Number.isFinite), ...Array.from({ length: 33 }, (_, i) => i / 2 - 8)]) {
      bits[0] = t;
      const at = asInt[0]!;
      for (let d = -4; d <= 4; d++) {
        asInt[0] = at + d;
        points.push(bits[0]);
      }
    }
    const next = random(21);
    for (let i = 0; i < 20000; i++) points.push((next() - 0.5) * (i % 2 ? 20 : 80));
    points.push(Infinity, -Infinity, NaN, 0, -0, 8, -8, 1e-30, -1e-30);
    const input: Logits = { data: Float32Array.from(points), channels: 1, width: points.length, height: 1 };
    for (const confidence of confidences) {
      for (const background of [0, 1]) {
        const expected = referenceSubjectGrid(input, 2, background, confidence);
        const actual = subjectGrid(input, 2, background, confidence);
        expect(firstDifference(actual.probability, expected.probability), `confidence ${confidence}`).toBe(-1);
        expect(firstDifference(actual.classIds, expected.classIds), `confidence ${confidence}`).toBe(-1);
      }
    }
  });

  test.each([
    // channels, classes, background id, confidence
    [1, 2, 0, 50],
    [1, 2, 1, 30],
    [2, 2, 0, 50],
    [2, 2, 1, 70],
    [2, 3, 0, 50],
    [3, 3, 0, 40],
    [4, 4, 2, 60],
    [3, 4, 0, 50],
  ])('%i channels, %i classes, background %i, confidence %i', (channels, classes, background, confidence) => {
    const input = logits(channels, 4000, channels * 100 + classes * 10 + background);
    const expected = referenceSubjectGrid(input, classes, background, confidence);
    const actual = subjectGrid(input, classes, background, confidence);
    expect(actual.probability).toEqual(expected.probability);
    expect(actual.classIds).toEqual(expected.classIds);
  });
});

describe("the CPU compositor's arithmetic matches the plain loops", () => {
  test('boxBlur: the same bytes and the same floats as one running sum per line', () => {
    const next = random(5);
    for (const [w, h, r, passes] of [
      [1, 1, 1, 2],
      [7, 1, 2, 3],
      [1, 9, 3, 1],
      [33, 21, 1, 2],
      [160, 120, 5, 3],
      [12, 40, 30, 3],
    ] as const) {
      const bytes = Uint8Array.from({ length: w * h }, () => (next() < 0.5 ? 0 : 255) & Math.floor(next() * 256));
      const floats = Float32Array.from({ length: w * h }, () => next() * 255);
      const [b1, f1] = [bytes.slice(), floats.slice()];
      boxBlur(bytes, w, h, r, passes);
      boxBlur(floats, w, h, r, passes);
      referenceBoxBlur(b1, w, h, r, passes);
      referenceBoxBlur(f1, w, h, r, passes);
      expect(firstDifference(bytes, b1), `${w}×${h} r ${r}`).toBe(-1);
      expect(firstDifference(new Uint8Array(floats.buffer), new Uint8Array(f1.buffer)), `${w}×${h} r ${r}`).toBe(-1);
    }
  });

  test('boxBlur of four interleaved float channels: each the same floats as that channel blurred on its own', () => {
    const next = random(6);
    for (const [w, h, r, passes] of [
      [1, 1, 1, 2],
      [7, 1, 2, 3],
      [1, 9, 3, 1],
      [160, 120, 2, 3],
      [12, 40, 30, 3],
    ] as const) {
      const pixels = Float32Array.from({ length: w * h * 4 }, () => next() * 255);
      const channels = [0, 1, 2, 3].map((c) => pixels.filter((_, i) => i % 4 === c));
      boxBlur(pixels, w, h, r, passes, 4);
      for (const [c, channel] of channels.entries()) {
        referenceBoxBlur(channel, w, h, r, passes);
        const blurred = pixels.filter((_, i) => i % 4 === c);
        expect(firstDifference(new Uint8Array(blurred.buffer), new Uint8Array(channel.buffer)), `${w}×${h} r ${r} channel ${c}`).toBe(-1);
      }
    }
  });

  test('boxBlur refuses a buffer of the wrong size, and bytes of more than one channel', () => {
    expect(() => boxBlur(new Float32Array(5), 2, 2, 1, 1)).toThrow(RangeError);
    expect(() => boxBlur(new Uint8Array(16), 2, 2, 1, 1, 4)).toThrow(RangeError);
  });

  test('the WebAssembly module carried in src/pipeline/wasm/kernels.wasm.ts is what its source compiles to', async () => {
    const { compileKernels, kernelsModule, KERNELS_MODULE } = await import('../../../scripts/build-kernels.mjs');
    expect(readFileSync(KERNELS_MODULE, 'utf8'), 'run `npm run build:kernels`').toBe(kernelsModule(await compileKernels()));
  });

  test('upsample2x is bilinear at half-pixel centres to within rounding, alpha untouched', () => {
    const next = random(9);
    for (const [sw, sh, ow, oh] of [
      [1, 1, 2, 2],
      [5, 3, 10, 6],
      [5, 3, 9, 5],
      [40, 30, 80, 60],
    ] as const) {
      const source = { data: Uint8ClampedArray.from({ length: sw * sh * 4 }, () => Math.floor(next() * 256)), width: sw, height: sh };
      const into = { data: new Uint8ClampedArray(ow * oh * 4).fill(77), width: ow, height: oh };
      // A pixel of alpha 0 is left as it is.
      into.data.fill(0, 4, 8);
      upsample2x(source, into);
      expect(Array.from(into.data.subarray(4, 8))).toEqual([0, 0, 0, 0]);
      into.data.fill(77, 4, 8);
      upsample2x(source, into);
      const at = (x: number, y: number, c: number) =>
        source.data[(Math.min(sh - 1, Math.max(0, y)) * sw + Math.min(sw - 1, Math.max(0, x))) * 4 + c]!;
      for (let y = 0; y < oh; y++) {
        for (let x = 0; x < ow; x++) {
          const [sx, sy] = [(x + 0.5) / 2 - 0.5, (y + 0.5) / 2 - 0.5];
          const [x0, y0] = [Math.floor(sx), Math.floor(sy)];
          const [fx, fy] = [sx - x0, sy - y0];
          for (let c = 0; c < 3; c++) {
            const top = at(x0, y0, c) * (1 - fx) + at(x0 + 1, y0, c) * fx;
            const bottom = at(x0, y0 + 1, c) * (1 - fx) + at(x0 + 1, y0 + 1, c) * fx;
            expect(Math.abs(into.data[(y * ow + x) * 4 + c]! - (top * (1 - fy) + bottom * fy))).toBeLessThanOrEqual(0.5);
          }
          expect(into.data[(y * ow + x) * 4 + 3]).toBe(77);
        }
      }
    }
  });
});

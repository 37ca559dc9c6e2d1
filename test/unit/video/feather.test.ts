// The compositors' effect arithmetic that runs on the CPU: coverage, box blur, the choke curve, cover fitting.
import { describe, expect, test } from 'vitest';
import { blurFactor, CHOKE, coverRect, featherSigma, maskFactor, parseHexColor } from '../../../src/video/effect.js';
import { boxRadiusFor, CHOKE_TABLE, paddedCoverage, subjectCoverage } from '../../../src/video/feather.js';
import { boxBlur } from '../../../src/pipeline/kernels.js';

test('paddedCoverage: coverage already at the reduced size, copied in with the edge cells repeated into the padding', () => {
  const { data, width, height } = paddedCoverage(Uint8Array.from([10, 20, 30, 40]), 2, 2, 1);
  expect([width, height]).toEqual([4, 4]);
  expect(Array.from(data)).toEqual([10, 10, 20, 20, 10, 10, 20, 20, 30, 30, 40, 40, 30, 30, 40, 40]);
});

describe('subjectCoverage', () => {
  test('counts the subject in each 2×2 block, background id from the caller, edges copied into the padding', () => {
    // Background is class 3 here: every other class is subject.
    const ids = Uint8Array.from([3, 3, 0, 3, 3, 3, 3, 1, 2, 2, 3, 3, 2, 2, 3, 3]);
    const { data, width, height } = subjectCoverage(ids, 4, 4, 3, 2, 1);
    expect([width, height]).toEqual([4, 4]);
    // Blocks: top left 0/4, top right 2/4, bottom left 4/4, bottom right 0/4; padding repeats the edges.
    expect(Array.from(data)).toEqual([0, 0, 128, 128, 0, 0, 128, 128, 255, 255, 0, 0, 255, 255, 0, 0]);
  });

  test('a block cut by an odd size counts only the pixels it has', () => {
    const ids = Uint8Array.from([1, 1, 0, 1, 1, 0, 0, 0, 1]);
    const { data, width, height } = subjectCoverage(ids, 3, 3, 0, 2, 0);
    expect([width, height]).toEqual([2, 2]);
    // [1 1; 1 1] → 4/4; [0; 0] → 0/2; [0 0] → 0/2; [1] → 1/1.
    expect(Array.from(data)).toEqual([255, 0, 0, 255]);
  });

  test("the previous frame's buffer is reused when its size fits, every cell rewritten", () => {
    const ids = Uint8Array.from([3, 3, 0, 3, 3, 3, 3, 1, 2, 2, 3, 3, 2, 2, 3, 3]);
    const stale = new Uint8Array(16).fill(77);
    const { data } = subjectCoverage(ids, 4, 4, 3, 2, 1, stale);
    expect(data).toBe(stale);
    expect(Array.from(data)).toEqual(Array.from(subjectCoverage(ids, 4, 4, 3, 2, 1).data));
    // Another size: a buffer of its own.
    expect(subjectCoverage(ids, 4, 4, 3, 2, 0, stale).data).not.toBe(stale);
  });
});

describe('boxBlur', () => {
  test('a step across one line, radius 1, one pass: thirds; the ends are held, not faded', () => {
    const line = Uint8Array.from([0, 0, 0, 255, 255, 255]);
    boxBlur(line, 6, 1, 1, 1);
    expect(Array.from(line)).toEqual([0, 0, 85, 170, 255, 255]);
  });

  test('a constant region stays exactly constant after three passes both ways (the subject stays opaque)', () => {
    const data = new Uint8Array(37 * 23).fill(255);
    boxBlur(data, 37, 23, 4, 3);
    expect(data.every((v) => v === 255)).toBe(true);
  });

  test('blurs down the columns too, and floats keep their fractions', () => {
    const data = Float32Array.from([0, 3, 0, 0, 0, 0]); // 2 wide, 3 high: a 3 at (1, 0)
    boxBlur(data, 2, 3, 1, 1);
    // Across: row 0 → [(0+0+3)/3, (0+3+3)/3] = [1, 2], rows 1 and 2 stay 0. Down, the top held:
    // column 0 [1, 0, 0] → [(1+1+0)/3, (1+0+0)/3, 0]; column 1 [2, 0, 0] → [4/3, 2/3, 0].
    const expected = [2 / 3, 4 / 3, 1 / 3, 2 / 3, 0, 0];
    expect(Array.from(data).map((v) => Number(v.toFixed(5)))).toEqual(expected.map((v) => Number(v.toFixed(5))));
  });

  test('boxRadiusFor inverts σ² = passes·r(r+1)/3, the variance of repeated box passes', () => {
    expect([1, 2, 3, 5].map((r) => boxRadiusFor(Math.sqrt(r * (r + 1)), 3))).toEqual([1, 2, 3, 5]);
    expect([1, 2, 3, 5].map((r) => boxRadiusFor(Math.sqrt((2 * r * (r + 1)) / 3), 2))).toEqual([1, 2, 3, 5]);
    expect(boxRadiusFor(0.2, 3)).toBe(1);
  });
});

describe('the choke and the sizes', () => {
  test('CHOKE_TABLE: 0 up to CHOKE.from, 255 from CHOKE.to, smoothstep between, never decreasing', () => {
    expect(CHOKE_TABLE[0]).toBe(0);
    expect(CHOKE_TABLE[Math.floor(CHOKE.from * 255)]).toBe(0);
    expect(CHOKE_TABLE[Math.ceil(CHOKE.to * 255)]).toBe(255);
    expect(CHOKE_TABLE[255]).toBe(255);
    // Halfway between from and to: smoothstep's 0.5.
    expect(CHOKE_TABLE[Math.round(((CHOKE.from + CHOKE.to) / 2) * 255)]).toBeCloseTo(127.5, -0.5);
    for (let v = 1; v < 256; v++) expect(CHOKE_TABLE[v]!).toBeGreaterThanOrEqual(CHOKE_TABLE[v - 1]!);
  });

  test('coverRect crops the overflow of a cover fit, centred', () => {
    expect(coverRect(1280, 960, 640, 480)).toEqual({ x: 0, y: 0, width: 1280, height: 960 });
    expect(coverRect(1000, 1000, 640, 480)).toEqual({ x: 0, y: 125, width: 1000, height: 750 });
    expect(coverRect(1920, 1080, 640, 480)).toEqual({ x: 240, y: 0, width: 1440, height: 1080 });
  });

  test('featherSigma scales with the image and has a floor; parseHexColor reads #rrggbb only', () => {
    expect(featherSigma(640, 480)).toBe(2);
    expect(featherSigma(3840, 2160)).toBe(12);
    expect(featherSigma(100, 80)).toBe(1.5);
    expect(parseHexColor('#00B140')).toEqual([0, 177, 64]);
    expect(() => parseHexColor('green')).toThrow(/#rrggbb/);
  });
});

describe('maskFactor', () => {
  test('2 up to a longest side of 1279 px, 4 from 1280, 8 from 2560: the mask keeps 320 cells or more on its longest side', () => {
    const sizes: [number, number][] = [
      [200, 150],
      [640, 480],
      [960, 540],
      [1279, 720],
      [1280, 720],
      [720, 1280],
      [1920, 1080],
      [2559, 1440],
      [2560, 1440],
      [3840, 2160],
    ];
    expect(sizes.map(([w, h]) => maskFactor(w, h))).toEqual([2, 2, 2, 2, 4, 4, 4, 4, 8, 8]);
    expect(sizes.map(([w, h]) => blurFactor(w, h))).toEqual([4, 4, 4, 4, 8, 8, 8, 8, 16, 16]);
  });

  test("so the feather's σ is 1–2 cells of the mask from 640 px up (and the frame's longest side / 320 px)", () => {
    for (let longest = 640; longest <= 4096; longest += 16) {
      const cells = featherSigma(longest, longest / 2) / maskFactor(longest, longest / 2);
      expect(cells).toBeGreaterThanOrEqual(1);
      expect(cells).toBeLessThan(2);
    }
  });
});

// A still's soft alpha reduced to the compositors' mask size, and the compositor front that takes it.
import { describe, expect, test } from 'vitest';
import { coverageOfAlpha, withAlphaMasks } from '../../../src/video/alpha-mask.js';
import type { Compositor, EffectMask } from '../../../src/video/compositor.js';

describe('coverageOfAlpha', () => {
  test('each 2 × 2 block’s mean (maskFactor 2 below 1280 px); the blocks at odd edges are cut short', () => {
    // 5 × 3: blocks of columns {0,1} {2,3} {4} and rows {0,1} {2}.
    const alpha = Uint8Array.from([0, 255, 10, 20, 7, 255, 255, 30, 40, 9, 100, 50, 1, 2, 3]);
    const { coverage, width, height } = coverageOfAlpha({ alpha, width: 5, height: 3 });
    expect([width, height]).toEqual([5, 3]);
    // (0 + 255 + 255 + 255) / 4 = 191.25; (10 + 20 + 30 + 40) / 4 = 25; (7 + 9) / 2 = 8; (100 + 50) / 2 = 75; (1 + 2) / 2 = 1.5 → 2; 3.
    expect([...coverage]).toEqual([191, 25, 8, 75, 2, 3]);
  });
});

describe('withAlphaMasks', () => {
  test('an AlphaMask reaches the compositor as its coverage; other masks as they are; the same object', () => {
    const seen: EffectMask[] = [];
    const inner: Compositor = {
      kind: 'canvas2d',
      canvas: {} as OffscreenCanvas,
      render: (_f, mask) => void seen.push(mask as EffectMask),
      dispose() {},
    };
    const front = withAlphaMasks(inner);
    expect(front).toBe(inner);
    const ids = { classIds: new Uint8Array(4), width: 2, height: 2, background: 0 };
    const frame = {} as ImageBitmap;
    front.render(frame, ids, { kind: 'cutout' });
    front.render(frame, { alpha: Uint8Array.from([0, 100, 200, 255]), width: 2, height: 2 }, { kind: 'cutout' });
    expect(seen[0]).toBe(ids);
    expect(seen[1]).toEqual({ coverage: Uint8Array.from([139]), width: 2, height: 2 });
  });
});

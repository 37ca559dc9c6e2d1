// The CPU compositor's look, pixel by pixel: away from the subject's edge the subject is the frame itself
// and the background is the effect (the colour to the unit, cleared, an image, a blur with no halo).
import { describe, expect, test } from 'vitest';
import { CanvasCompositor } from '../../src/video/canvas-compositor.js';
import type { EffectMask, SceneEffect } from '../../src/video/compositor.js';
import { maskFactor } from '../../src/video/effect.js';

/**
 * The scene at `scale` × 200 × 150: a dark square subject over light grey with blue stripes (so a blur
 * changes it). At scale 6.4 (1280 × 960) the mask is at a quarter of the size, not half (maskFactor).
 */
function scene(scale: number) {
  const [W, H] = [Math.round(200 * scale), Math.round(150 * scale)];
  const SQUARE = { x: Math.round(70 * scale), y: Math.round(40 * scale), size: Math.round(70 * scale) };
  const inSquare = (x: number, y: number) => x >= SQUARE.x && x < SQUARE.x + SQUARE.size && y >= SQUARE.y && y < SQUARE.y + SQUARE.size;
  /** Distance in pixels from (x, y) out to the square (Chebyshev): negative inside it. */
  const edgeDistance = (x: number, y: number) => {
    const dx = Math.max(SQUARE.x - x, x - (SQUARE.x + SQUARE.size - 1));
    const dy = Math.max(SQUARE.y - y, y - (SQUARE.y + SQUARE.size - 1));
    return Math.max(dx, dy);
  };

  const frame = (): OffscreenCanvas => {
    const ctx = new OffscreenCanvas(W, H).getContext('2d')!;
    ctx.fillStyle = 'rgb(200,200,200)';
    ctx.fillRect(0, 0, W, H);
    ctx.fillStyle = 'rgb(40,80,220)';
    for (let x = 0; x < W; x += 12) ctx.fillRect(x, 0, 4, H);
    ctx.fillStyle = 'rgb(20,10,5)';
    ctx.fillRect(SQUARE.x, SQUARE.y, SQUARE.size, SQUARE.size);
    return ctx.canvas;
  };

  // The video path's coverage comes at 1/maskFactor of the frame's size (the contract of CoverageMask).
  const f = maskFactor(W, H);
  const [cw, ch] = [Math.ceil(W / f), Math.ceil(H / f)];
  const masks: Record<string, EffectMask> = {
    // A still's class ids at full size, background id 3.
    'class ids': {
      classIds: Uint8Array.from({ length: W * H }, (_, i) => (inSquare(i % W, Math.floor(i / W)) ? 1 : 3)),
      width: W,
      height: H,
      background: 3,
    },
    coverage: {
      coverage: Uint8Array.from({ length: cw * ch }, (_, i) => (inSquare((i % cw) * f, Math.floor(i / cw) * f) ? 255 : 0)),
      width: W,
      height: H,
    },
  };

  const render = (mask: EffectMask, effect: SceneEffect) => {
    const source = frame();
    const compositor = new CanvasCompositor(new OffscreenCanvas(1, 1));
    compositor.render(source, mask, effect);
    const out = (compositor.canvas as OffscreenCanvas).getContext('2d')!.getImageData(0, 0, W, H).data;
    const original = source.getContext('2d')!.getImageData(0, 0, W, H).data;
    compositor.dispose();
    return { out, original };
  };

  /** The pixels at least `margin` px inside the subject, and at least `margin` px out in the background. */
  const regions = (margin: number) => {
    const subject: number[] = [];
    const background: number[] = [];
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const d = edgeDistance(x, y);
        if (d <= -margin) subject.push(y * W + x);
        else if (d >= margin) background.push(y * W + x);
      }
    }
    return { subject, background };
  };
  return { W, H, SQUARE, edgeDistance, masks, render, regions };
}

const pixel = (data: Uint8ClampedArray, i: number) => Array.from(data.subarray(i * 4, i * 4 + 4));

const CASES = [1, 6.4].flatMap((scale) => ['class ids', 'coverage'].map((name) => ({ scale, name })));

describe.each(CASES)('the canvas compositor at $scale × 200 × 150, with $name', ({ scale, name }) => {
  const { W, SQUARE, edgeDistance, masks, render, regions } = scene(scale);
  const mask = masks[name]!;
  // Distances in pixels grow with the scene: the feather, the blur and the mask's cells all do.
  const px = (n: number) => Math.round(n * scale);
  const { subject, background } = regions(px(8));

  test('colour: the subject is the frame to the unit, the background the colour to the unit', () => {
    const { out, original } = render(mask, { kind: 'color', color: [18, 52, 86] });
    expect(subject.filter((i) => pixel(out, i).join() !== pixel(original, i).join())).toEqual([]);
    expect(background.filter((i) => pixel(out, i).join() !== '18,52,86,255')).toEqual([]);
  });

  test('cutout: the background is cleared, the subject is opaque and the frame', () => {
    const { out, original } = render(mask, { kind: 'cutout' });
    expect(subject.filter((i) => pixel(out, i).join() !== pixel(original, i).join())).toEqual([]);
    expect(background.filter((i) => out[i * 4 + 3] !== 0)).toEqual([]);
    // Across the edge the alpha falls from opaque to clear without a step back up.
    const row = SQUARE.y + (SQUARE.size >> 1);
    const alphas = Array.from({ length: px(16) }, (_, k) => out[(row * W + SQUARE.x - px(8) + k) * 4 + 3]!);
    for (let k = 1; k < alphas.length; k++) expect(alphas[k]!).toBeGreaterThanOrEqual(alphas[k - 1]!);
    expect([alphas[0], alphas.at(-1)]).toEqual([0, 255]);
  });

  test('image: the background is the image', async () => {
    const ctx = new OffscreenCanvas(40, 30).getContext('2d')!;
    ctx.fillStyle = 'rgb(0,200,100)';
    ctx.fillRect(0, 0, 40, 30);
    const image = await createImageBitmap(ctx.canvas);
    const { out, original } = render(mask, { kind: 'image', image });
    expect(subject.filter((i) => pixel(out, i).join() !== pixel(original, i).join())).toEqual([]);
    expect(background.filter((i) => pixel(out, i).join() !== '0,200,100,255')).toEqual([]);
  });

  test('blur: the subject is the frame, the background is blurred, and the dark subject leaves no halo in it', () => {
    const { out, original } = render(mask, { kind: 'blur' });
    expect(subject.filter((i) => pixel(out, i).join() !== pixel(original, i).join())).toEqual([]);
    // The stripes are smoothed out: the blue stripes' pixels are no longer the stripe's blue.
    const stripes = background.filter((i) => original[i * 4] === 40);
    expect(stripes.filter((i) => out[i * 4]! > 80).length / stripes.length).toBeGreaterThan(0.9);
    // Just outside the feather the background mixes grey (200) and blue (40) only: its mean over a band
    // around the square is that of the background far away, not darkened toward the subject's (20, 10, 5).
    const luma = (i: number) => (out[i * 4]! + out[i * 4 + 1]! + out[i * 4 + 2]!) / 3;
    const band = background.filter((i) => edgeDistance(i % W, Math.floor(i / W)) <= px(12));
    const far = background.filter((i) => edgeDistance(i % W, Math.floor(i / W)) >= px(30));
    const mean = (list: number[]) => list.reduce((s, i) => s + luma(i), 0) / list.length;
    expect(Math.abs(mean(band) - mean(far))).toBeLessThan(8);
  });
});

describe('the canvas compositor with one coverage mask over several frames (a live mask shown again)', () => {
  const { W, H, masks } = scene(1);
  const mask = masks.coverage as Extract<EffectMask, { coverage: Uint8Array }>;
  /** Another frame: the first with a red block in its background. */
  const frameB = (): OffscreenCanvas => {
    const ctx = new OffscreenCanvas(W, H).getContext('2d')!;
    ctx.fillStyle = 'rgb(200,200,200)';
    ctx.fillRect(0, 0, W, H);
    ctx.fillStyle = 'rgb(230,20,20)';
    ctx.fillRect(10, 10, 40, 40);
    return ctx.canvas;
  };
  const draw = (compositor: CanvasCompositor, frame: OffscreenCanvas, m: EffectMask) => {
    compositor.render(frame, m, { kind: 'blur' });
    return (compositor.canvas as OffscreenCanvas).getContext('2d')!.getImageData(0, 0, W, H).data;
  };
  const fresh = (frame: OffscreenCanvas, m: EffectMask) => draw(new CanvasCompositor(new OffscreenCanvas(1, 1)), frame, m);
  const same = (a: Uint8ClampedArray, b: Uint8ClampedArray) => a.length === b.length && a.every((v, i) => v === b[i]);

  test('the same mask on a new frame draws as a fresh compositor draws it; a new mask after it is drawn anew', () => {
    const first = new OffscreenCanvas(W, H).getContext('2d')!;
    first.fillStyle = 'rgb(40,80,220)';
    first.fillRect(0, 0, W, H);
    const compositor = new CanvasCompositor(new OffscreenCanvas(1, 1));
    draw(compositor, first.canvas, mask);
    const again = draw(compositor, frameB(), mask);
    expect(same(again, fresh(frameB(), { ...mask, coverage: mask.coverage.slice() }))).toBe(true);
    // A new array with other values (the subject gone): the background is everywhere.
    const empty = { ...mask, coverage: new Uint8Array(mask.coverage.length) };
    const after = draw(compositor, frameB(), empty);
    const expected = fresh(frameB(), { ...empty, coverage: empty.coverage.slice() });
    expect(same(after, expected)).toBe(true);
    expect(same(after, again)).toBe(false);
  });
});

// createCompositor draws a still's soft alpha (AlphaMask) as it draws class ids: a hard alpha looks exactly
// like the class-id mask it came from, and a soft edge is drawn between the two sides.
import { expect, test } from 'vitest';
import { createCompositor, type AlphaMask, type EffectMask } from '../../src/index.js';

const [W, H] = [240, 160];
const inside = (x: number, y: number) => (x - 120) ** 2 + (y - 80) ** 2 < 55 ** 2;

function frame(): OffscreenCanvas {
  const ctx = new OffscreenCanvas(W, H).getContext('2d')!;
  ctx.fillStyle = 'rgb(200,200,200)';
  ctx.fillRect(0, 0, W, H);
  ctx.fillStyle = 'rgb(20,10,5)';
  ctx.beginPath();
  ctx.arc(120, 80, 55, 0, 2 * Math.PI);
  ctx.fill();
  return ctx.canvas;
}

function draw(mask: EffectMask | AlphaMask): Uint8ClampedArray {
  const compositor = createCompositor(new OffscreenCanvas(1, 1), 'canvas2d');
  compositor.render(frame(), mask, { kind: 'color', color: [0, 255, 0] });
  const out = (compositor.canvas as OffscreenCanvas).getContext('2d')!.getImageData(0, 0, W, H).data;
  compositor.dispose();
  return out;
}

test('a hard AlphaMask is drawn as its class ids are; a soft one differs only along the edge', () => {
  const classIds = Uint8Array.from({ length: W * H }, (_, i) => (inside(i % W, Math.floor(i / W)) ? 1 : 0));
  const fromIds = draw({ classIds, width: W, height: H, background: 0 });
  const hard = draw({ alpha: classIds.map((c) => c * 255), width: W, height: H });
  expect(hard).toEqual(fromIds);
  // A soft alpha: a ramp 6 px wide across the circle's edge.
  const soft = draw({
    alpha: Uint8Array.from({ length: W * H }, (_, i) => {
      const d = Math.hypot((i % W) - 120, Math.floor(i / W) - 80) - 55;
      return Math.round(255 * Math.min(1, Math.max(0, 0.5 - d / 6)));
    }),
    width: W,
    height: H,
  });
  let differ = 0;
  for (let p = 0; p < W * H; p++) {
    const d = Math.abs(Math.hypot((p % W) - 120, Math.floor(p / W) - 80) - 55);
    if (soft[p * 4 + 1] !== fromIds[p * 4 + 1]) {
      differ++;
      expect(d).toBeLessThan(12);
    }
  }
  expect(differ).toBeGreaterThan(0);
});

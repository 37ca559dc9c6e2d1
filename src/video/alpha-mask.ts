// A still's soft alpha, as the compositors take it: reduced to the mask's size (the live path's refined
// coverage), so that both compositors draw it with the code that draws live video.
import type { AlphaMask, Compositor, CoverageMask } from './compositor.js';
import { maskFactor } from './effect.js';

/** The mean alpha of each maskFactor × maskFactor block (the blocks at the right and bottom edges may be cut short). */
export function coverageOfAlpha({ alpha, width, height }: AlphaMask): CoverageMask {
  const factor = maskFactor(width, height);
  const [cw, ch] = [Math.ceil(width / factor), Math.ceil(height / factor)];
  const sums = new Uint32Array(cw * ch);
  const counts = new Uint32Array(cw * ch);
  for (let y = 0; y < height; y++) {
    const row = Math.floor(y / factor) * cw;
    for (let x = 0, p = y * width; x < width; x++, p++) {
      const cell = row + Math.floor(x / factor);
      sums[cell] = sums[cell]! + alpha[p]!;
      counts[cell] = counts[cell]! + 1;
    }
  }
  const coverage = new Uint8Array(cw * ch);
  for (let i = 0; i < coverage.length; i++) coverage[i] = Math.round(sums[i]! / counts[i]!);
  return { coverage, width, height };
}

/**
 * The compositor itself, its `render` taking an AlphaMask too: reduced by coverageOfAlpha, then drawn as
 * a coverage mask. The same object, so that whatever else it has stays in reach.
 */
export function withAlphaMasks<C extends Compositor>(compositor: C): C {
  const render = compositor.render.bind(compositor);
  compositor.render = (frame, mask, effect) => render(frame, 'alpha' in mask ? coverageOfAlpha(mask) : mask, effect);
  return compositor;
}

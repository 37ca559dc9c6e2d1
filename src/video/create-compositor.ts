// Picks the compositor: WebGL2 on a real GPU, the CPU where there is none.
import { withAlphaMasks } from './alpha-mask.js';
import { CanvasCompositor } from './canvas-compositor.js';
import type { Compositor, CompositorCanvas, CompositorChoice } from './compositor.js';
import { WebglCompositor } from './webgl-compositor.js';

/**
 * A compositor on `canvas` that draws class-id masks, live video's coverage and a still's soft alpha.
 * `auto`: WebGL2 where the browser runs it on a GPU, else the CPU compositor. A software WebGL
 * (SwiftShader, llvmpipe) is the slowest of the three: on 2 cores its rasteriser took the cores from the
 * model's worker (camera at 640×480 with blur: 3 frames/s, against 15 with the CPU compositor).
 *
 * @param canvas - Where it draws: a page's canvas, or an OffscreenCanvas in a worker.
 * @param choice - `auto` (the default), or `webgl2` or `canvas2d` to force one.
 * @throws Error for `webgl2` where the browser has no WebGL2.
 */
export function createCompositor(canvas: CompositorCanvas, choice: CompositorChoice = 'auto'): Compositor {
  if (choice === 'webgl2' || (choice === 'auto' && hardwareWebgl2())) {
    // preserveDrawingBuffer: the result stays readable (screenshots, downloads, tests) after it is shown.
    const attributes = { premultipliedAlpha: true, alpha: true, antialias: false, preserveDrawingBuffer: true };
    const context = canvas.getContext('webgl2', attributes);
    const gl = typeof WebGL2RenderingContext !== 'undefined' && context instanceof WebGL2RenderingContext ? context : null;
    if (gl) return withAlphaMasks(new WebglCompositor(canvas, gl));
    if (choice === 'webgl2') throw new Error('this browser has no WebGL2');
  }
  return withAlphaMasks(new CanvasCompositor(canvas));
}

/**
 * Whether WebGL2 runs on a GPU. Chromium does not refuse its SwiftShader fallback for
 * `failIfMajorPerformanceCaveat`, so the renderer's name is read too (where the browser tells it).
 */
export function hardwareWebgl2(): boolean {
  // An OffscreenCanvas, so that the check runs in a worker too.
  if (typeof OffscreenCanvas === 'undefined') return false;
  const gl = new OffscreenCanvas(1, 1).getContext('webgl2', { failIfMajorPerformanceCaveat: true });
  if (!gl) return false;
  const info = gl.getExtension('WEBGL_debug_renderer_info');
  const renderer = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
  gl.getExtension('WEBGL_lose_context')?.loseContext();
  return !/swiftshader|llvmpipe|softpipe|software/i.test(renderer);
}

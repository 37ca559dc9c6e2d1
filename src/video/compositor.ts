// The compositor: draws a frame with a background effect; WebGL2 on a real GPU, the CPU where there is none.
// It runs on a page's canvas (stills in the demo) or an OffscreenCanvas in a worker (live video).
import { CanvasCompositor } from './canvas-compositor.js';
import type { Effect } from './effect.js';
import { WebglCompositor } from './webgl-compositor.js';

/** A still's segmentation to composite with: class ids at the frame's size, and which id is the background. */
export interface ClassMask {
  classIds: Uint8Array;
  width: number;
  height: number;
  background: number;
}

/**
 * The video path's mask: subject alpha (0–255), already refined against the frame, at 1/MASK_FACTOR of
 * the frame's size (`width` × `height` are the frame's).
 */
export interface CoverageMask {
  coverage: Uint8Array;
  width: number;
  height: number;
}

export type EffectMask = ClassMask | CoverageMask;

/** Where a compositor draws: a page's canvas, or an OffscreenCanvas (in a worker). */
export type CompositorCanvas = HTMLCanvasElement | OffscreenCanvas;

/** What a compositor draws from: a still image or a camera frame. */
export type FrameSource = ImageBitmap | VideoFrame | HTMLVideoElement | HTMLCanvasElement | OffscreenCanvas;

/** The effects a compositor draws (the class overlay is the viewer's). */
export type SceneEffect = Exclude<Effect, { kind: 'overlay' }>;

export interface Compositor {
  readonly kind: 'webgl2' | 'canvas2d';
  readonly canvas: CompositorCanvas;
  /**
   * Draws `frame` with `effect` applied to the background class of `mask` (which has the frame's size).
   * `frame` is only read: the caller still owns it (and closes a VideoFrame).
   */
  render(frame: FrameSource, mask: EffectMask, effect: SceneEffect): void;
  dispose(): void;
}

export type CompositorChoice = 'auto' | 'webgl2' | 'canvas2d';

/**
 * `auto`: WebGL2 where the browser runs it on a GPU, else the CPU compositor. A software WebGL
 * (SwiftShader, llvmpipe) is the slowest of the three: on 2 cores its rasteriser took the cores from the
 * model's worker (camera at 640×480 with blur: 3 frames/s, against 15 with the CPU compositor).
 */
export function createCompositor(canvas: CompositorCanvas, choice: CompositorChoice = 'auto'): Compositor {
  if (choice === 'webgl2' || (choice === 'auto' && hardwareWebgl2())) {
    // preserveDrawingBuffer: the result stays readable (screenshots, downloads, tests) after it is shown.
    const attributes = { premultipliedAlpha: true, alpha: true, antialias: false, preserveDrawingBuffer: true };
    const context = canvas.getContext('webgl2', attributes);
    const gl = typeof WebGL2RenderingContext !== 'undefined' && context instanceof WebGL2RenderingContext ? context : null;
    if (gl) return new WebglCompositor(canvas, gl);
    if (choice === 'webgl2') throw new Error('this browser has no WebGL2');
  }
  return new CanvasCompositor(canvas);
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

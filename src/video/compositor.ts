// What a compositor is: it draws a frame with a background effect (create-compositor.ts picks WebGL2 or the
// CPU one). It runs on a page's canvas (stills in the demo) or an OffscreenCanvas in a worker (live video).
import type { Effect } from './effect.js';

/** A still's segmentation to composite with: class ids at the frame's size, and which id is the background. */
export interface ClassMask {
  classIds: Uint8Array;
  width: number;
  height: number;
  background: number;
}

/**
 * The video path's mask: subject alpha (0–255), already refined against the frame, at 1/maskFactor of
 * the frame's size (`width` × `height` are the frame's). Read once per array: what a compositor makes of
 * it may be kept while the same array comes again (one mask shown on several frames), so new values come
 * in a new array.
 */
export interface CoverageMask {
  coverage: Uint8Array;
  width: number;
  height: number;
}

/**
 * A still's soft alpha at the frame's size (`segmentRaw(image, { alpha: true })`'s `alpha`): the subject's
 * share of each pixel, 0–255, its edge already following the picture's. Drawn as live video's refined mask
 * is: reduced to the mask's size, then feathered.
 */
export interface AlphaMask {
  /** One byte a pixel, row-major: 0 background, 255 subject. */
  alpha: Uint8Array;
  /** The frame's width. */
  width: number;
  /** The frame's height. */
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
   * Draws `frame` with `effect` applied to the background of `mask` (which has the frame's size): the
   * class ids' background class, or where the subject's alpha or coverage is low (an `AlphaMask` is
   * taken by the compositors that `createCompositor` makes).
   * `frame` is only read: the caller still owns it (and closes a VideoFrame).
   */
  render(frame: FrameSource, mask: EffectMask | AlphaMask, effect: SceneEffect): void;
  dispose(): void;
}

export type CompositorChoice = 'auto' | 'webgl2' | 'canvas2d';

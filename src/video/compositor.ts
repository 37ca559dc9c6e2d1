// What a compositor is: it draws a frame with a background effect (create-compositor.ts picks WebGL2 or the
// CPU one). It runs on a page's canvas (stills in the demo) or an OffscreenCanvas in a worker (live video).
import type { Effect } from './effect.js';

/** A still's segmentation to composite with: class ids at the frame's size, and which id is the background. */
export interface ClassMask {
  /** One class id per pixel, row-major, at the frame's size. */
  classIds: Uint8Array;
  /** The frame's width. */
  width: number;
  /** The frame's height. */
  height: number;
  /** The class id that the effect applies to (the model's background class). */
  background: number;
}

/**
 * The video path's mask: subject alpha (0–255), already refined against the frame, at 1/maskFactor of
 * the frame's size (`width` × `height` are the frame's). Read once per array: what a compositor makes of
 * it may be kept while the same array comes again (one mask shown on several frames), so new values come
 * in a new array.
 */
export interface CoverageMask {
  /** The subject's share of each cell, 0–255, row-major, at 1/maskFactor of the frame's size. */
  coverage: Uint8Array;
  /** The frame's width. */
  width: number;
  /** The frame's height. */
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

/** A mask a compositor draws from: a still's class ids, or live video's refined coverage. */
export type EffectMask = ClassMask | CoverageMask;

/** Where a compositor draws: a page's canvas, or an OffscreenCanvas (in a worker). */
export type CompositorCanvas = HTMLCanvasElement | OffscreenCanvas;

/** What a compositor draws from: a still image or a camera frame. */
export type FrameSource = ImageBitmap | VideoFrame | HTMLVideoElement | HTMLCanvasElement | OffscreenCanvas;

/** The effects a compositor draws (the class overlay is the viewer's). */
export type SceneEffect = Exclude<
  Effect,
  {
    /** The class overlay, which no compositor draws. */
    kind: 'overlay';
  }
>;

/**
 * Draws a frame with its background blurred, replaced or cut out, from the frame's mask: what live video
 * composites with, and what the demo draws its photos with. Made by `createCompositor`.
 */
export interface Compositor {
  /** Which one draws: WebGL2 (on a GPU) or the CPU's canvas 2D. */
  readonly kind: 'webgl2' | 'canvas2d';
  /** Where it draws; sized to each frame it renders. */
  readonly canvas: CompositorCanvas;
  /**
   * Draws `frame` with `effect` applied to the background of `mask` (which has the frame's size): the
   * class ids' background class, or where the subject's alpha or coverage is low (an `AlphaMask` is
   * taken by the compositors that `createCompositor` makes).
   * `frame` is only read: the caller still owns it (and closes a VideoFrame).
   */
  render(frame: FrameSource, mask: EffectMask | AlphaMask, effect: SceneEffect): void;
  /** Frees its GPU resources and buffers; the compositor draws no more. */
  dispose(): void;
}

/** Which compositor `createCompositor` makes: `auto` picks WebGL2 where it runs on a GPU, else canvas 2D. */
export type CompositorChoice = 'auto' | 'webgl2' | 'canvas2d';

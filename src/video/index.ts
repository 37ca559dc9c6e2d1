// Live video: createVideoEffect, and the compositor that draws its effects (the demo uses it for stills).
export {
  createVideoEffect,
  VideoEffect,
  type VideoEffectOptions,
  type VideoEffectSettings,
  type VideoBackground,
  type VideoStats,
  type VideoMask,
  type VideoPath,
  type VideoEffectName,
  type BundledModelName,
} from './video-effect.js';
export { createCompositor } from './create-compositor.js';
export type { Compositor, CompositorChoice, FrameSource, EffectMask } from './compositor.js';
export { parseHexColor, type Effect, type EffectKind, type Rgb } from './effect.js';

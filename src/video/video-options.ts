// createVideoEffect's options: their types, their checks and defaults, and the background's decoding
// (a colour, any CSS colour through a canvas, or an image).
import { decodeBitmap, fetchImageBytes } from '../decode/decode-in-worker.js';
import { checkPixelCount, DEFAULT_MAX_PIXELS, pixelLimit } from '../decode/image-header.js';
import { InvalidInputError } from '../errors/index.js';
import { refuseModelWord } from '../model/bundled-model.js';
import { DEFAULT_CONFIDENCE, validateConfidence } from '../pipeline/confidence.js';
import type { RuntimeBackendName, SegmenterOptions } from '../runtime/segmenter.js';
import { defaultVideoModel } from './bundled-models.js';
import type { Rgb } from './effect.js';
import type { VideoEffectName, VideoSettings } from './protocol.js';

/** A replacement colour (`'#rrggbb'`, any CSS colour, or [r, g, b] 0–255) or image (a Blob, a bitmap, an image, a canvas, a URL). */
export type VideoBackground = string | Rgb | Blob | ImageBitmap | ImageData | HTMLImageElement | HTMLCanvasElement | OffscreenCanvas | URL;

/**
 * The effect's old name for `'color'`, accepted until the next release.
 * @deprecated Use `'color'` (the spelling of `EffectKind`, the compositor's and CSS's).
 */
export type DeprecatedVideoEffectName = 'colour';

/** What can be changed while the effect runs. */
export interface VideoEffectSettings {
  /**
   * `'none'` passes frames through (masks still come to onMask); `'overlay'` paints each class; `'blur'`
   * blurs the background; `'color'` replaces the background with `background`'s colour; `'image'` with its
   * picture; `'cutout'` makes it transparent. `'colour'` is a deprecated alias of `'color'`.
   * @default 'blur'
   */
  effect?: VideoEffectName | DeprecatedVideoEffectName;
  /**
   * For `'color'` a colour, for `'image'` the picture, cover-fitted.
   * @default a dark green, [20, 90, 60] (`'image'` with no picture given draws it too)
   */
  background?: VideoBackground;
  /**
   * The background blur's strength, 0.25–4: the σ as a multiple of the default (the longest side / 64).
   * @default 1
   */
  blur?: number;
  /**
   * 0–0.95: how much of its past a still part of the picture keeps each frame (0: raw per-frame masks).
   * @default 0.7
   */
  smoothing?: number;
  /**
   * 0–100, as segment()'s: a pixel whose best class is less sure than this is background.
   * @default 50
   */
  confidence?: number;
}

/**
 * What `createVideoEffect` takes: the effect's first settings, the model and how it runs (the options of
 * `createSegmenter` but the hosted route's), the compositor, and whether frames wait for their masks.
 */
export interface VideoEffectOptions extends VideoEffectSettings, Omit<SegmenterOptions, 'model' | 'backends' | 'hosted'> {
  /**
   * Anything `createSegmenter` takes as its model: a bundled model
   * (`import peopleLandscape from 'edgeseg/models/people-landscape'`), a package URL, `{ files }`, a version.
   * The default (also by its name, `'people'`) is the only model this call brings into a build by itself.
   * @default the bundled people model
   */
  model?: SegmenterOptions['model'];
  /**
   * Tried in this order: live video runs the model on this device, so `hosted` is refused.
   * @default ['webgpu', 'wasm']
   */
  backends?: Exclude<RuntimeBackendName, 'hosted'>[];
  /**
   * `auto`: WebGL2 where it runs on a GPU, else canvas 2D.
   * @default 'auto'
   */
  compositor?: 'auto' | 'webgl2' | 'canvas2d';
  /**
   * `true`: each frame waits for its own mask. `false`: each frame is shown at once on the newest mask, and
   * the model takes a frame whenever it is free: lower latency, and as many frames out as the compositor
   * keeps up with where the model is slower than the camera; a moving edge lags by a model run. `'auto'`:
   * frames wait while the model and the frame loop keep pace with the camera, and stop waiting while they
   * do not.
   * @default 'auto'
   */
  waitForMask?: boolean | 'auto';
}

const DEFAULT_COLOR: Rgb = [20, 90, 60];

/** The options of createVideoEffect, checked: the effect's settings, and what the segmenter is made with. */
export async function parseVideoOptions(
  options: VideoEffectOptions,
): Promise<{ settings: VideoSettings; segmenter: SegmenterOptions; maxPixels: number }> {
  if (typeof options !== 'object' || options === null)
    throw new InvalidInputError('OPTION_INVALID', 'createVideoEffect takes an options object');
  // Checked before a background is fetched or decoded under it.
  const maxPixels = pixelLimit(options.maxPixels);
  const settings = await resolveSettings(options, null, maxPixels);
  if ((options.backends as string[] | undefined)?.includes('hosted'))
    throw new InvalidInputError(
      'OPTION_INVALID',
      'live video runs the model on this device: hosted is not a backend for createVideoEffect',
    );
  const compositor = options.compositor ?? 'auto';
  if (!['auto', 'webgl2', 'canvas2d'].includes(compositor))
    throw new InvalidInputError('OPTION_INVALID', `compositor must be auto, webgl2 or canvas2d`);
  const waitForMask = options.waitForMask ?? 'auto';
  if (waitForMask !== true && waitForMask !== false && waitForMask !== 'auto')
    throw new InvalidInputError('OPTION_INVALID', `waitForMask must be true, false or 'auto'`);
  const {
    model,
    effect: _e,
    background: _b,
    blur: _bl,
    smoothing: _s,
    confidence: _c,
    compositor: _co,
    waitForMask: _w,
    ...rest
  } = options;
  return {
    settings: { ...settings, compositor, waitForMask },
    segmenter: { ...rest, backends: options.backends ?? ['webgpu', 'wasm'], model: await modelOf(model) },
    maxPixels,
  };
}

async function modelOf(model: SegmenterOptions['model'] | undefined): Promise<SegmenterOptions['model']> {
  // The default, left out or by name: brought into a build only by an app that calls createVideoEffect.
  if (model === undefined || model === 'people') return defaultVideoModel();
  refuseModelWord(model, 'createVideoEffect');
  return model;
}

const EFFECTS: readonly VideoEffectName[] = ['none', 'overlay', 'blur', 'color', 'image', 'cutout'];

/**
 * Checks `partial` and merges it over `base` (the defaults when null), decoding a new background: an image
 * over `maxPixels` (the effect's `maxPixels`, as for any image) is refused with IMAGE_TOO_LARGE.
 */
export async function resolveSettings(
  partial: VideoEffectSettings,
  base: VideoSettings | null,
  maxPixels = DEFAULT_MAX_PIXELS,
): Promise<VideoSettings> {
  if (typeof partial !== 'object' || partial === null)
    throw new InvalidInputError('OPTION_INVALID', 'update() takes an object of settings');
  // The old spelling, kept for one release (DeprecatedVideoEffectName).
  const effect = partial.effect === 'colour' ? 'color' : (partial.effect ?? base?.effect ?? 'blur');
  if (!EFFECTS.includes(effect))
    throw new InvalidInputError('OPTION_INVALID', `effect must be one of ${EFFECTS.join(', ')}; got ${String(effect)}`);
  const blur = partial.blur ?? base?.blur ?? 1;
  if (!(typeof blur === 'number' && blur >= 0.25 && blur <= 4))
    throw new InvalidInputError('OPTION_INVALID', `blur must be a number 0.25–4, got ${String(blur)}`);
  const smoothing = partial.smoothing ?? base?.smoothing ?? 0.7;
  if (!(typeof smoothing === 'number' && smoothing >= 0 && smoothing <= 0.95))
    throw new InvalidInputError('OPTION_INVALID', `smoothing must be a number 0–0.95, got ${String(smoothing)}`);
  const confidence = validateConfidence(partial.confidence ?? base?.confidence ?? DEFAULT_CONFIDENCE);
  let color = base?.color ?? DEFAULT_COLOR;
  let image = base?.image ?? null;
  if (partial.background !== undefined) {
    const parsed = await decodeBackground(partial.background, effect, maxPixels);
    if ('color' in parsed) color = parsed.color;
    else image = parsed.image;
  }
  return {
    effect,
    color,
    image,
    blur,
    smoothing,
    confidence,
    masks: base?.masks ?? false,
    compositor: base?.compositor ?? 'auto',
    waitForMask: base?.waitForMask ?? 'auto',
  };
}

async function decodeBackground(
  background: VideoBackground,
  effect: VideoEffectName,
  maxPixels: number,
): Promise<{ color: Rgb } | { image: ImageBitmap }> {
  if (Array.isArray(background)) {
    if (background.length !== 3 || background.some((v) => !Number.isInteger(v) || v < 0 || v > 255))
      throw new InvalidInputError('OPTION_INVALID', 'a background colour as [r, g, b] takes integers 0–255');
    return { color: [background[0]!, background[1]!, background[2]!] };
  }
  if (typeof background === 'string' && effect !== 'image') {
    const color = cssColor(background);
    if (!color) throw new InvalidInputError('OPTION_INVALID', `not a colour: ${background}`);
    return { color };
  }
  // Bytes from a URL or a Blob are decoded as any image to segment is (decodeBitmap): the same allow-list, the
  // same pixel limit read from the header before the browser decodes, and again on what it decoded. The
  // background may come from elsewhere (a URL a user picked), and a 2 KB file can decode to gigabytes.
  const about = (error: unknown): never => {
    if (error instanceof InvalidInputError)
      throw new InvalidInputError(error.code, `the background image: ${error.message}`, { cause: error });
    throw error;
  };
  if (typeof background === 'string' || background instanceof URL || (typeof Blob === 'function' && background instanceof Blob)) {
    const bytes = await (
      background instanceof Blob ? background.arrayBuffer().then((b) => new Uint8Array(b)) : fetchImageBytes(background)
    ).catch(about);
    return { image: await decodeBitmap(bytes, maxPixels).catch(about) };
  }
  // A picture the page has decoded already (a bitmap, an image, a canvas): its size is held to the same limit.
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(background as ImageBitmapSource);
  } catch (cause) {
    throw new InvalidInputError('IMAGE_DECODE_FAILED', `the background image could not be decoded: ${(cause as Error).message}`, { cause });
  }
  try {
    checkPixelCount(bitmap.width, bitmap.height, maxPixels);
  } catch (error) {
    bitmap.close();
    about(error);
  }
  return { image: bitmap };
}

/** Any CSS colour → [r, g, b], through a canvas; null when the canvas does not take it. */
function cssColor(text: string): Rgb | null {
  const ctx = new OffscreenCanvas(1, 1).getContext('2d')!;
  // A value the canvas refuses leaves the previous one: two different probes tell a refusal from a match.
  for (const probe of ['#000000', '#ffffff']) {
    ctx.fillStyle = probe;
    ctx.fillStyle = text;
    if (ctx.fillStyle === probe) {
      ctx.fillStyle = probe === '#000000' ? '#ffffff' : '#000000';
      ctx.fillStyle = text;
      if (ctx.fillStyle !== probe) return null;
    }
  }
  ctx.fillRect(0, 0, 1, 1);
  const [r, g, b] = ctx.getImageData(0, 0, 1, 1).data;
  return [r!, g!, b!];
}

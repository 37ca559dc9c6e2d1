// Background effects on the CPU (canvas 2D): the same steps as the WebGL2 compositor, for browsers whose
// WebGL runs in software; the mask arithmetic is feather.ts and kernels.ts (WebAssembly), scaling and mixing are the canvas's own.
import type { Compositor, CompositorCanvas, EffectMask, FrameSource, SceneEffect } from './compositor.js';
import { backgroundBlurSigma, blurFactor, coverRect, featherSigma, maskFactor } from './effect.js';
import { boxRadiusFor, CHOKE_TABLE, paddedCoverage, subjectCoverage } from './feather.js';
import { boxBlur, upsample2x } from '../pipeline/kernels.js';

type Context = OffscreenCanvasRenderingContext2D;
type Coverage = { data: Uint8Array; width: number; height: number };

export class CanvasCompositor implements Compositor {
  readonly kind = 'canvas2d';
  readonly canvas: CompositorCanvas;
  readonly #out: CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;
  readonly #scratch = new Map<string, Context>();
  /** Per-frame buffers kept between frames (each is wholly rewritten): coverage, pixel buffers, the background's weighted colour. */
  #coverage: Uint8Array | undefined;
  readonly #images = new Map<string, ImageData>();
  #weighted: Float32Array | undefined;
  /** The last coverage mask's feathered coverage, kept while the same mask comes again (a live mask shown on several frames). */
  #feathered: { from: Uint8Array; width: number; height: number; coverage: Coverage } | null = null;

  constructor(canvas: CompositorCanvas) {
    this.canvas = canvas;
    // willReadFrequently keeps the canvases in memory: this compositor runs where there is no GPU, and a
    // canvas on a software GPU would pay that GPU's cost again.
    this.#out = canvas.getContext('2d', { willReadFrequently: true }) as CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;
  }

  render(frame: FrameSource, mask: EffectMask, effect: SceneEffect): void {
    const { width, height } = mask;
    if (this.canvas.width !== width || this.canvas.height !== height) [this.canvas.width, this.canvas.height] = [width, height];

    // Coverage at 1/factor of the size, padded so that the blur keeps a subject that touches the border, feathered.
    const factor = maskFactor(width, height);
    const sigma = featherSigma(width, height) / factor;
    const radius = boxRadiusFor(sigma, 2);
    const pad = 3 * radius;
    const [cw, ch] = [Math.ceil(width / factor), Math.ceil(height / factor)];
    const kept = this.#feathered;
    let coverage: Coverage;
    if ('coverage' in mask && kept?.from === mask.coverage && kept.width === width && kept.height === height) coverage = kept.coverage;
    else {
      coverage =
        'coverage' in mask
          ? paddedCoverage(mask.coverage, cw, ch, pad, this.#coverage)
          : subjectCoverage(mask.classIds, width, height, mask.background, factor, pad, this.#coverage);
      this.#coverage = coverage.data;
      // Two box passes (a triangle filter): smooth enough under the bilinear scaling and the choke, and a
      // third of the work saved on every frame.
      boxBlur(coverage.data, coverage.width, coverage.height, radius, 2);
      this.#feathered = 'coverage' in mask ? { from: mask.coverage, width, height, coverage } : null;
    }
    if (effect.kind === 'image') {
      this.#overImage(frame, coverage, pad, width, height, effect.image);
      return;
    }

    // A full-size draw costs about as much as all the arithmetic here, so there are two: the frame (a
    // camera frame's one conversion from YUV), then, scaled up over it, the background at the mask's size with
    // the inverse of the subject's alpha (a cutout erases with that alpha instead). The blur reads the
    // output's copy of the frame.
    const out = this.#out;
    out.globalCompositeOperation = 'copy';
    out.drawImage(frame, 0, 0, width, height);
    const cover = this.#image('cover', cw, ch);
    const { data } = cover;
    alphaInto(cover, coverage, pad, true);
    // The alpha first: where the subject hides the background entirely, its colour is not computed.
    if (effect.kind === 'blur') upsample2x(this.#blurredBackground(out.canvas, coverage, pad, width, height, effect.strength ?? 1), cover);
    else if (effect.kind === 'color') {
      const [r, g, b] = effect.color;
      for (let i = 0; i < data.length; i += 4) {
        data[i] = r;
        data[i + 1] = g;
        data[i + 2] = b;
      }
    }
    const ctx = this.#context('cover', cw, ch);
    ctx.putImageData(cover, 0, 0);
    out.globalCompositeOperation = effect.kind === 'cutout' ? 'destination-out' : 'source-over';
    out.drawImage(ctx.canvas, 0, 0, cw * factor, ch * factor);
  }

  /** An image background: the subject on a layer of its own (the frame through the scaled-up alpha), over the image. */
  #overImage(frame: FrameSource, coverage: Coverage, pad: number, width: number, height: number, image: ImageBitmap): void {
    const factor = maskFactor(width, height);
    const [cw, ch] = [Math.ceil(width / factor), Math.ceil(height / factor)];
    // Only the alpha channel is written; the colour channels stay 0, as in a new ImageData.
    const alpha = this.#image('alpha', cw, ch);
    alphaInto(alpha, coverage, pad, false);
    const alphaCtx = this.#context('alpha', cw, ch);
    alphaCtx.putImageData(alpha, 0, 0);
    const layer = this.#context('layer', width, height);
    layer.globalCompositeOperation = 'copy';
    layer.drawImage(alphaCtx.canvas, 0, 0, cw * factor, ch * factor);
    layer.globalCompositeOperation = 'source-in';
    layer.drawImage(frame, 0, 0, width, height);
    const out = this.#out;
    out.globalCompositeOperation = 'copy';
    const r = coverRect(image.width, image.height, width, height);
    out.drawImage(image, r.x, r.y, r.width, r.height, 0, 0, width, height);
    out.globalCompositeOperation = 'source-over';
    out.drawImage(layer.canvas, 0, 0);
  }

  /**
   * The frame at half the mask's size, blurred with each pixel weighted by how much background it is (rgb·w, w
   * blurred, then divided), so that the subject leaves no halo in the background around it.
   */
  #blurredBackground(
    frame: CanvasImageSource,
    coverage: Coverage,
    pad: number,
    width: number,
    height: number,
    strength: number,
  ): ImageData {
    const scale = blurFactor(width, height);
    const [bw, bh] = [Math.ceil(width / scale), Math.ceil(height / scale)];
    const small = this.#context('background', bw, bh);
    small.globalCompositeOperation = 'copy';
    small.drawImage(frame, 0, 0, bw, bh);
    const pixels = small.getImageData(0, 0, bw, bh);
    const rgba = pixels.data;
    const n = bw * bh;
    // Per pixel r·w, g·w, b·w and w, blurred together (each on its own).
    if (this.#weighted?.length !== n * 4) this.#weighted = new Float32Array(n * 4);
    const weighted = this.#weighted;
    const step = scale / maskFactor(width, height);
    for (let y = 0, i = 0; y < bh; y++) {
      const row = (pad + y * step) * coverage.width + pad;
      for (let x = 0; x < bw; x++, i += 4) {
        const w = 1 - coverage.data[row + x * step]! / 255;
        weighted[i] = rgba[i]! * w;
        weighted[i + 1] = rgba[i + 1]! * w;
        weighted[i + 2] = rgba[i + 2]! * w;
        weighted[i + 3] = w;
      }
    }
    const radius = boxRadiusFor(backgroundBlurSigma(width, height, strength) / scale, 3);
    boxBlur(weighted, bw, bh, radius, 3, 4);
    for (let i = 0; i < n * 4; i += 4) {
      const w = weighted[i + 3]!;
      // Deep inside the subject no background is near: keep the pixel (the subject covers it anyway).
      if (w > 1e-3) {
        rgba[i] = weighted[i]! / w;
        rgba[i + 1] = weighted[i + 1]! / w;
        rgba[i + 2] = weighted[i + 2]! / w;
      }
    }
    return pixels;
  }

  dispose(): void {
    this.#scratch.clear();
    this.#images.clear();
    [this.#coverage, this.#weighted, this.#feathered] = [undefined, undefined, null];
  }

  #context(name: string, width: number, height: number): Context {
    let ctx = this.#scratch.get(name);
    if (!ctx || ctx.canvas.width !== width || ctx.canvas.height !== height) {
      ctx = new OffscreenCanvas(width, height).getContext('2d', { willReadFrequently: true })!;
      this.#scratch.set(name, ctx);
    }
    return ctx;
  }

  /** A pixel buffer of this size, kept between frames. */
  #image(name: string, width: number, height: number): ImageData {
    let image = this.#images.get(name);
    if (image?.width !== width || image.height !== height) {
      image = new ImageData(width, height);
      this.#images.set(name, image);
    }
    return image;
  }
}

/** The feathered alpha (the choke of the unpadded coverage) into the alpha channel of `image`, or its inverse. */
function alphaInto(image: ImageData, coverage: Coverage, pad: number, inverse: boolean): void {
  const { width, height, data } = image;
  const flip = inverse ? 255 : 0;
  for (let y = 0, i = 3; y < height; y++) {
    const row = (y + pad) * coverage.width + pad;
    for (let x = 0; x < width; x++, i += 4) data[i] = Math.abs(flip - CHOKE_TABLE[coverage.data[row + x]!]!);
  }
}

// Background effects on the CPU (canvas 2D): the same steps as the WebGL2 compositor, for browsers whose
// WebGL runs in software; the mask arithmetic is feather.ts, scaling and mixing are the canvas's own.
import type { Compositor, CompositorCanvas, EffectMask, FrameSource, SceneEffect } from './compositor.js';
import { backgroundBlurSigma, BLUR_FACTOR, coverRect, featherSigma, MASK_FACTOR } from './effect.js';
import { boxBlur, boxRadiusFor, CHOKE_TABLE, paddedCoverage, subjectCoverage } from './feather.js';

type Context = OffscreenCanvasRenderingContext2D;

export class CanvasCompositor implements Compositor {
  readonly kind = 'canvas2d';
  readonly canvas: CompositorCanvas;
  readonly #out: CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;
  readonly #scratch = new Map<string, Context>();
  /** Per-frame buffers kept between frames (each is wholly rewritten): coverage, alpha, background planes. */
  #coverage: Uint8Array | undefined;
  #alpha: ImageData | undefined;
  #planes: Float32Array[] = [];

  constructor(canvas: CompositorCanvas) {
    this.canvas = canvas;
    // willReadFrequently keeps the canvases in memory: this compositor runs where there is no GPU, and a
    // canvas on a software GPU would pay that GPU's cost again.
    this.#out = canvas.getContext('2d', { willReadFrequently: true }) as CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;
  }

  render(frame: FrameSource, mask: EffectMask, effect: SceneEffect): void {
    const { width, height } = mask;
    if (this.canvas.width !== width || this.canvas.height !== height) [this.canvas.width, this.canvas.height] = [width, height];

    // Coverage at half size, padded so that the blur keeps a subject that touches the border, feathered.
    const sigma = featherSigma(width, height) / MASK_FACTOR;
    const radius = boxRadiusFor(sigma, 2);
    const pad = 3 * radius;
    const coverage =
      'coverage' in mask
        ? paddedCoverage(mask.coverage, Math.ceil(width / MASK_FACTOR), Math.ceil(height / MASK_FACTOR), pad, this.#coverage)
        : subjectCoverage(mask.classIds, width, height, mask.background, MASK_FACTOR, pad, this.#coverage);
    this.#coverage = coverage.data;
    // Two box passes (a triangle filter): smooth enough under the bilinear scaling and the choke, and a
    // third of the work saved on every frame.
    boxBlur(coverage.data, coverage.width, coverage.height, radius, 2);

    // The subject layer: the alpha scaled up bilinearly (the canvas's smoothing), the frame through it.
    const alpha = this.#context('alpha', coverage.width, coverage.height);
    // Only the alpha channel is written; the colour channels stay 0, as in a new ImageData.
    if (this.#alpha?.width !== coverage.width || this.#alpha.height !== coverage.height)
      this.#alpha = alpha.createImageData(coverage.width, coverage.height);
    const image = this.#alpha;
    for (let i = 0; i < coverage.data.length; i++) image.data[i * 4 + 3] = CHOKE_TABLE[coverage.data[i]!]!;
    alpha.putImageData(image, 0, 0);
    const layer = this.#context('layer', width, height);
    const [cw, ch] = [Math.ceil(width / MASK_FACTOR), Math.ceil(height / MASK_FACTOR)];
    layer.globalCompositeOperation = 'copy';
    layer.drawImage(alpha.canvas, pad, pad, cw, ch, 0, 0, cw * MASK_FACTOR, ch * MASK_FACTOR);
    // A camera frame that both layers read (the blur) is converted (YUV to RGB) once, into a canvas.
    const source =
      typeof VideoFrame !== 'undefined' && frame instanceof VideoFrame && effect.kind === 'blur'
        ? this.#converted(frame, width, height)
        : frame;
    layer.globalCompositeOperation = 'source-in';
    layer.drawImage(source, 0, 0, width, height);

    const out = this.#out;
    out.globalCompositeOperation = 'copy';
    if (effect.kind === 'cutout') out.clearRect(0, 0, width, height);
    else if (effect.kind === 'color') {
      out.fillStyle = `rgb(${effect.color.join(',')})`;
      out.fillRect(0, 0, width, height);
    } else if (effect.kind === 'image') {
      const r = coverRect(effect.image.width, effect.image.height, width, height);
      out.drawImage(effect.image, r.x, r.y, r.width, r.height, 0, 0, width, height);
    } else out.drawImage(this.#blurredBackground(source, coverage, pad, width, height, effect.strength ?? 1), 0, 0, width, height);
    out.globalCompositeOperation = 'source-over';
    out.drawImage(layer.canvas, 0, 0);
  }

  /**
   * The frame at quarter size, blurred with each pixel weighted by how much background it is (rgb·w, w
   * blurred, then divided), so that the subject leaves no halo in the background around it.
   */
  #blurredBackground(
    frame: CanvasImageSource,
    coverage: { data: Uint8Array; width: number },
    pad: number,
    width: number,
    height: number,
    strength: number,
  ): OffscreenCanvas {
    const [bw, bh] = [Math.ceil(width / BLUR_FACTOR), Math.ceil(height / BLUR_FACTOR)];
    const small = this.#context('background', bw, bh);
    small.globalCompositeOperation = 'copy';
    small.drawImage(frame, 0, 0, bw, bh);
    const pixels = small.getImageData(0, 0, bw, bh);
    const n = bw * bh;
    if (this.#planes[0]?.length !== n) this.#planes = [0, 1, 2, 3].map(() => new Float32Array(n));
    const planes = this.#planes;
    const step = BLUR_FACTOR / MASK_FACTOR;
    for (let y = 0; y < bh; y++) {
      for (let x = 0; x < bw; x++) {
        const i = y * bw + x;
        const w = 1 - coverage.data[(pad + y * step) * coverage.width + pad + x * step]! / 255;
        for (let c = 0; c < 3; c++) planes[c]![i] = pixels.data[i * 4 + c]! * w;
        planes[3]![i] = w;
      }
    }
    const radius = boxRadiusFor(backgroundBlurSigma(width, height, strength) / BLUR_FACTOR, 3);
    for (const plane of planes) boxBlur(plane, bw, bh, radius, 3);
    for (let i = 0; i < n; i++) {
      const w = planes[3]![i]!;
      // Deep inside the subject no background is near: keep the pixel (the subject covers it anyway).
      if (w > 1e-3) for (let c = 0; c < 3; c++) pixels.data[i * 4 + c] = planes[c]![i]! / w;
    }
    small.putImageData(pixels, 0, 0);
    return small.canvas;
  }

  #converted(frame: VideoFrame, width: number, height: number): OffscreenCanvas {
    const ctx = this.#context('frame', width, height);
    ctx.drawImage(frame, 0, 0, width, height);
    return ctx.canvas;
  }

  dispose(): void {
    this.#scratch.clear();
    [this.#coverage, this.#alpha, this.#planes] = [undefined, undefined, []];
  }

  #context(name: string, width: number, height: number): Context {
    let ctx = this.#scratch.get(name);
    if (!ctx || ctx.canvas.width !== width || ctx.canvas.height !== height) {
      ctx = new OffscreenCanvas(width, height).getContext('2d', { willReadFrequently: true })!;
      this.#scratch.set(name, ctx);
    }
    return ctx;
  }
}

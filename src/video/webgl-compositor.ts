// Background effects on the GPU (WebGL2): class ids → feathered alpha → blur, replace or cut out the background.
// Used where WebGL2 runs on a real GPU; canvas-compositor.ts does the same on the CPU where it does not.
//
// Per frame: the frame and the class ids are uploaded as they come (the ids as an integer texture, so
// nothing is converted on the CPU); the ids become subject coverage at a reduced size, which a separable
// Gaussian feathers; the background blur works on a quarter-size copy weighted by the inverse alpha; one
// last pass mixes the full-size frame with the background through the bilinearly upsampled alpha.
import type { Compositor, CompositorCanvas, EffectMask, FrameSource, SceneEffect } from './compositor.js';
import { backgroundBlurSigma, blurFactor, coverRect, featherSigma, maskFactor } from './effect.js';
import { BACKGROUND_FRAGMENT, BLUR_FRAGMENT, COMPOSITE_FRAGMENT, COVERAGE_FRAGMENT, FULLSCREEN_VERTEX } from './shaders.js';

interface Target {
  texture: WebGLTexture;
  framebuffer: WebGLFramebuffer;
  width: number;
  height: number;
}

type PassName = 'coverage' | 'blur' | 'background' | 'composite';

const KIND = { blur: 1, color: 2, image: 3, cutout: 4 } as const;

export class WebglCompositor implements Compositor {
  readonly kind = 'webgl2';
  readonly canvas: CompositorCanvas;
  readonly #gl: WebGL2RenderingContext;
  readonly #programs: Record<PassName, WebGLProgram>;
  readonly #uniforms = new Map<WebGLProgram, Map<string, WebGLUniformLocation | null>>();
  readonly #frame: WebGLTexture;
  readonly #ids: WebGLTexture;
  /** The video path's coverage (already at the mask's size), uploaded as it comes. */
  readonly #coverage: WebGLTexture;
  readonly #replacement: WebGLTexture;
  #replacementSource: ImageBitmap | null = null;
  #staging: OffscreenCanvasRenderingContext2D | null = null;
  #targets = new Map<string, Target>();

  /** `gl`: a WebGL2 context of `canvas`, made with preserveDrawingBuffer (see compositor.ts). */
  constructor(canvas: CompositorCanvas, gl: WebGL2RenderingContext) {
    this.canvas = canvas;
    this.#gl = gl;
    this.#programs = {
      coverage: this.#program(COVERAGE_FRAGMENT),
      blur: this.#program(BLUR_FRAGMENT),
      background: this.#program(BACKGROUND_FRAGMENT),
      composite: this.#program(COMPOSITE_FRAGMENT),
    };
    this.#frame = this.#texture(gl.LINEAR);
    this.#ids = this.#texture(gl.NEAREST);
    this.#coverage = this.#texture(gl.LINEAR);
    this.#replacement = this.#texture(gl.LINEAR);
    gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
  }

  render(frame: FrameSource, mask: EffectMask, effect: SceneEffect): void {
    const gl = this.#gl;
    const { width, height } = mask;
    if (this.canvas.width !== width || this.canvas.height !== height) [this.canvas.width, this.canvas.height] = [width, height];

    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D, this.#frame);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, this.#uploadable(frame, width, height));

    // Alpha: coverage at 1/maskFactor of the size, then a Gaussian across and down.
    const factor = maskFactor(width, height);
    const [mw, mh] = [Math.ceil(width / factor), Math.ceil(height / factor)];
    const coverage = this.#target('alpha', mw, mh);
    const across = this.#target('alpha-across', mw, mh);
    let source = coverage;
    if ('coverage' in mask) {
      // The video path refined its mask against the frame already: it is only feathered here.
      gl.bindTexture(gl.TEXTURE_2D, this.#coverage);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.R8, mw, mh, 0, gl.RED, gl.UNSIGNED_BYTE, mask.coverage);
      source = { ...coverage, texture: this.#coverage };
    } else {
      gl.bindTexture(gl.TEXTURE_2D, this.#ids);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.R8UI, width, height, 0, gl.RED_INTEGER, gl.UNSIGNED_BYTE, mask.classIds);
      this.#pass('coverage', coverage, { u_ids: this.#ids }, (u) => {
        gl.uniform1ui(u('u_background'), mask.background);
        gl.uniform1i(u('u_factor'), factor);
      });
    }
    const feather = featherSigma(width, height) / factor;
    this.#blur(source, across, coverage, feather);
    const alpha = coverage.texture;

    let background: WebGLTexture | null = null;
    if (effect.kind === 'blur') {
      const scale = blurFactor(width, height);
      const [bw, bh] = [Math.ceil(width / scale), Math.ceil(height / scale)];
      const small = this.#target('background', bw, bh);
      const smallAcross = this.#target('background-across', bw, bh);
      this.#pass('background', small, { u_frame: this.#frame, u_alpha: alpha }, (u) => gl.uniform2f(u('u_texel'), 1 / width, 1 / height));
      this.#blur(small, smallAcross, small, backgroundBlurSigma(width, height, effect.strength ?? 1) / scale);
      background = small.texture;
    } else if (effect.kind === 'image') {
      if (this.#replacementSource !== effect.image) {
        gl.bindTexture(gl.TEXTURE_2D, this.#replacement);
        gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, effect.image);
        this.#replacementSource = effect.image;
      }
      background = this.#replacement;
    }

    // Every sampler gets a texture of its type, used or not: WebGL checks them all at each draw.
    this.#pass('composite', null, { u_frame: this.#frame, u_alpha: alpha, u_background: background ?? this.#frame }, (u) => {
      gl.uniform1i(u('u_kind'), KIND[effect.kind]);
      if (effect.kind === 'color') gl.uniform3f(u('u_color'), effect.color[0] / 255, effect.color[1] / 255, effect.color[2] / 255);
      if (effect.kind === 'image') {
        const { iw, ih } = { iw: effect.image.width, ih: effect.image.height };
        const r = coverRect(iw, ih, width, height);
        gl.uniform4f(u('u_cover'), r.width / iw, r.height / ih, r.x / iw, r.y / ih);
      }
    });
  }

  /**
   * Video goes through a 2D canvas first: Chromium's texImage2D of a camera VideoFrame (or video element)
   * took 14 ms a frame on a software GL (SwiftShader), drawing it into a 2D canvas and uploading that 3 ms.
   * The live loop hands it its own copies of camera frames, canvases already, which go straight in.
   */
  #uploadable(frame: FrameSource, width: number, height: number): TexImageSource {
    const video =
      (typeof VideoFrame !== 'undefined' && frame instanceof VideoFrame) ||
      (typeof HTMLVideoElement !== 'undefined' && frame instanceof HTMLVideoElement);
    if (!video) return frame;
    if (this.#staging?.canvas.width !== width || this.#staging.canvas.height !== height)
      this.#staging = new OffscreenCanvas(width, height).getContext('2d')!;
    this.#staging.drawImage(frame, 0, 0, width, height);
    return this.#staging.canvas;
  }

  dispose(): void {
    const gl = this.#gl;
    for (const t of this.#targets.values()) {
      gl.deleteFramebuffer(t.framebuffer);
      gl.deleteTexture(t.texture);
    }
    this.#targets.clear();
    for (const t of [this.#frame, this.#ids, this.#coverage, this.#replacement]) gl.deleteTexture(t);
    for (const p of Object.values(this.#programs)) gl.deleteProgram(p);
    gl.getExtension('WEBGL_lose_context')?.loseContext();
  }

  /** A separable Gaussian of `source` into `out` (which may be `source`), through `scratch`. */
  #blur(source: Target, scratch: Target, out: Target, sigma: number): void {
    const gl = this.#gl;
    const radius = Math.ceil(2.5 * sigma);
    for (const [from, to, step] of [
      [source, scratch, [1 / source.width, 0]],
      [scratch, out, [0, 1 / source.height]],
    ] as const) {
      this.#pass('blur', to, { u_source: from.texture }, (u) => {
        gl.uniform2f(u('u_step'), step[0], step[1]);
        gl.uniform1f(u('u_sigma'), sigma);
        gl.uniform1i(u('u_radius'), radius);
      });
    }
  }

  /** Runs one fragment program over `target` (null: the canvas) with its textures bound in order. */
  #pass(
    name: PassName,
    target: Target | null,
    textures: Record<string, WebGLTexture>,
    setUniforms: (u: (name: string) => WebGLUniformLocation | null) => void,
  ): void {
    const gl = this.#gl;
    const program = this.#programs[name];
    gl.useProgram(program);
    gl.bindFramebuffer(gl.FRAMEBUFFER, target?.framebuffer ?? null);
    gl.viewport(0, 0, target?.width ?? this.canvas.width, target?.height ?? this.canvas.height);
    const u = (uniform: string) => this.#uniform(program, uniform);
    Object.entries(textures).forEach(([uniform, texture], unit) => {
      gl.activeTexture(gl.TEXTURE0 + unit);
      gl.bindTexture(gl.TEXTURE_2D, texture);
      gl.uniform1i(u(uniform), unit);
    });
    setUniforms(u);
    gl.drawArrays(gl.TRIANGLES, 0, 3);
  }

  #uniform(program: WebGLProgram, name: string): WebGLUniformLocation | null {
    let table = this.#uniforms.get(program);
    if (!table) this.#uniforms.set(program, (table = new Map<string, WebGLUniformLocation | null>()));
    if (!table.has(name)) table.set(name, this.#gl.getUniformLocation(program, name));
    return table.get(name)!;
  }

  /** A render target of this size, reused from frame to frame (re-made when the size changes). */
  #target(name: string, width: number, height: number): Target {
    const gl = this.#gl;
    const existing = this.#targets.get(name);
    if (existing && existing.width === width && existing.height === height) return existing;
    if (existing) {
      gl.deleteFramebuffer(existing.framebuffer);
      gl.deleteTexture(existing.texture);
    }
    const texture = this.#texture(gl.LINEAR);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, width, height, 0, gl.RGBA, gl.UNSIGNED_BYTE, null);
    const framebuffer = gl.createFramebuffer();
    gl.bindFramebuffer(gl.FRAMEBUFFER, framebuffer);
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, texture, 0);
    const target = { texture, framebuffer, width, height };
    this.#targets.set(name, target);
    return target;
  }

  #texture(filter: number): WebGLTexture {
    const gl = this.#gl;
    const texture = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, texture);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, filter);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, filter);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
    return texture;
  }

  #program(fragment: string): WebGLProgram {
    const gl = this.#gl;
    const program = gl.createProgram();
    for (const [type, source] of [
      [gl.VERTEX_SHADER, FULLSCREEN_VERTEX],
      [gl.FRAGMENT_SHADER, fragment],
    ] as const) {
      const shader = gl.createShader(type)!;
      gl.shaderSource(shader, source);
      gl.compileShader(shader);
      if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS)) throw new Error(`shader: ${gl.getShaderInfoLog(shader)}`);
      gl.attachShader(program, shader);
      gl.deleteShader(shader);
    }
    gl.linkProgram(program);
    if (!gl.getProgramParameter(program, gl.LINK_STATUS)) throw new Error(`program: ${gl.getProgramInfoLog(program)}`);
    return program;
  }
}

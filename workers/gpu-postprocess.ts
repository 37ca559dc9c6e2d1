// Postprocessing on the GPU: the logits stay where the model left them, one compute pass does the
// un-padding, the antialiased bilinear upsampling, softmax (or sigmoid), argmax and threshold, and only
// the 8-bit class ids (packed four to a word) come back to the CPU.
//
// It computes what classIdsFromLogits computes, with the same separable weights and the same tap order;
// GPU float arithmetic (exp, fused multiply-adds) differs from the CPU's in the last bits, so a pixel
// can differ only where two classes, or the confidence and the threshold, are within float32 noise.
import {
  antialiasWeights,
  classIdMapping,
  confidenceThreshold,
  logitPadding,
  type PostprocessOptions,
  type PreprocessMeta,
} from '../src/pipeline/index.js';
import { ComputePass, dispatchSize, WORKGROUP } from './gpu-pass.js';

const SHADER = /* wgsl */ `
struct Params {
  channels: u32, logitH: u32, logitW: u32, top: u32,
  left: u32, cropX: u32, cropY: u32, cropW: u32,
  cropH: u32, fullW: u32, fullH: u32, background: u32,
  threshold: f32, sigmoid: u32, groupsX: u32, _pad: u32,
};
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read> xTaps: array<vec3<i32>>;   // start, count, offset per output column
@group(0) @binding(3) var<storage, read> yTaps: array<vec3<i32>>;   // per output row
@group(0) @binding(4) var<storage, read> weights: array<f32>;        // x weights, then y weights
@group(0) @binding(5) var<storage, read> classOf: array<u32>;
@group(0) @binding(6) var<storage, read_write> out: array<u32>;

fn logit(c: u32, xt: vec3<i32>, yt: vec3<i32>) -> f32 {
  // Width pass first, then height, each accumulated in tap order, as the reference's kernel does.
  let plane = c * p.logitH * p.logitW;
  var acc = 0.0;
  for (var j = 0; j < yt.y; j++) {
    let row = plane + (p.top + u32(yt.x + j)) * p.logitW + p.left + u32(xt.x);
    var h = 0.0;
    for (var i = 0; i < xt.y; i++) { h = fma(logits[row + u32(i)], weights[xt.z + i], h); }
    acc = fma(h, weights[yt.z + j], acc);
  }
  return acc;
}

fn classAt(index: u32) -> u32 {
  let X = index % p.fullW;
  let Y = index / p.fullW;
  if (X < p.cropX || Y < p.cropY || X >= p.cropX + p.cropW || Y >= p.cropY + p.cropH) { return p.background; }
  let xt = xTaps[X - p.cropX];
  let yt = yTaps[Y - p.cropY];
  if (p.sigmoid == 1u) {
    let prob = 1.0 / (1.0 + exp(-logit(0u, xt, yt)));
    return select(classOf[0], p.background, prob < p.threshold);
  }
  var best = 0u;
  var top = logit(0u, xt, yt);
  for (var c = 1u; c < p.channels; c++) {
    let z = logit(c, xt, yt);
    if (z > top) { top = z; best = c; }
  }
  var sum = 0.0;
  for (var c = 0u; c < p.channels; c++) { sum += exp(logit(c, xt, yt) - top); }
  return select(classOf[best], p.background, 1.0 / sum < p.threshold);
}

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let word = gid.y * p.groupsX * ${WORKGROUP}u + gid.x;
  let total = p.fullW * p.fullH;
  if (word * 4u >= total) { return; }
  var packed = 0u;
  for (var k = 0u; k < 4u; k++) {
    let index = word * 4u + k;
    if (index < total) { packed |= (classAt(index) & 255u) << (8u * k); }
  }
  out[word] = packed;
}
`;

export interface GpuLogits {
  buffer: GPUBuffer;
  channels: number;
  height: number;
  width: number;
}

export class GpuPostprocessor {
  readonly #device: GPUDevice;
  readonly #pass: ComputePass;
  #output: { buffer: GPUBuffer; read: GPUBuffer; words: number } | null = null;

  constructor(device: GPUDevice) {
    this.#device = device;
    this.#pass = new ComputePass(device, SHADER);
  }

  /**
   * Class ids of the original image, or null when this case is left to the CPU (a centre crop that cut
   * the image: its padding is negative).
   */
  async classIds(logits: GpuLogits, meta: PreprocessMeta, options: PostprocessOptions): Promise<Uint8Array | null> {
    const { channels: C, height: h, width: w } = logits;
    const classOf = classIdMapping(C, options.classCount, options.backgroundClassId);
    const pad = logitPadding(h, w, meta);
    if (pad.top < 0 || pad.bottom < 0 || pad.left < 0 || pad.right < 0) return null;
    const ch = h - pad.top - pad.bottom;
    const cw = w - pad.left - pad.right;
    const ax = antialiasWeights(cw, meta.cropWidth);
    const ay = antialiasWeights(ch, meta.cropHeight);
    const taps = (a: ReturnType<typeof antialiasWeights>, base: number) => {
      const t = new Int32Array(a.start.length * 4);
      for (let i = 0; i < a.start.length; i++) t.set([a.start[i]!, a.count[i]!, a.offset[i]! + base, 0], i * 4);
      return t;
    };
    const weights = new Float32Array(ax.weights.length + ay.weights.length);
    weights.set(ax.weights);
    weights.set(ay.weights, ax.weights.length);
    const total = meta.originalWidth * meta.originalHeight;
    const words = Math.ceil(total / 4);
    const size = dispatchSize(words);
    const params = new ArrayBuffer(64);
    const u = new Uint32Array(params);
    u.set([
      C,
      h,
      w,
      pad.top,
      pad.left,
      meta.cropX,
      meta.cropY,
      meta.cropWidth,
      meta.cropHeight,
      meta.originalWidth,
      meta.originalHeight,
      options.backgroundClassId,
    ]);
    new Float32Array(params)[12] = confidenceThreshold(options.confidence);
    u[13] = C === 1 ? 1 : 0;
    u[14] = size.groupsX;

    const output = this.#outputFor(words);
    const invalid = await this.#pass.submit(
      (upload) => [
        { buffer: upload(new Uint8Array(params), GPUBufferUsage.UNIFORM) },
        { buffer: logits.buffer },
        { buffer: upload(taps(ax, 0), GPUBufferUsage.STORAGE) },
        { buffer: upload(taps(ay, ax.weights.length), GPUBufferUsage.STORAGE) },
        { buffer: upload(weights, GPUBufferUsage.STORAGE) },
        { buffer: upload(new Uint32Array(classOf), GPUBufferUsage.STORAGE) },
        { buffer: output.buffer },
      ],
      size,
      (encoder) => encoder.copyBufferToBuffer(output.buffer, 0, output.read, 0, words * 4),
    );
    if (invalid) throw new Error(`the GPU postprocessing pass was rejected: ${invalid}`);
    await output.read.mapAsync(GPUMapMode.READ, 0, words * 4);
    const ids = new Uint8Array(total);
    ids.set(new Uint8Array(output.read.getMappedRange(0, words * 4), 0, total));
    output.read.unmap();
    return ids;
  }

  destroy(): void {
    this.#output?.buffer.destroy();
    this.#output?.read.destroy();
    this.#output = null;
  }

  // The output and readback buffers are kept between calls and grown when an image needs more.
  #outputFor(words: number) {
    if (this.#output && this.#output.words >= words) return this.#output;
    this.destroy();
    const size = Math.max(16, words * 4);
    this.#output = {
      buffer: this.#device.createBuffer({ size, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC }),
      read: this.#device.createBuffer({ size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST }),
      words,
    };
    return this.#output;
  }
}

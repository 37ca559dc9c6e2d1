// Preprocessing on the GPU, for the webgpu backend: the decoded image goes up as it is (a JPEG's Y, Cb
// and Cr planes, or RGBA pixels) and one compute pass writes the network input where the model reads it.
//
// It computes what preprocess() computes, bit for bit: every step is integer arithmetic (libjpeg-turbo's
// fancy upsampling and fixed-point YCbCr → RGB, OpenCV's fixed-point INTER_LINEAR with its rounding)
// followed by the same float32 value tables. It is used where it pays by construction: where the image's
// bytes are no more than the float32 tensor's, which the CPU path would upload anyway, so the GPU path
// moves less data and takes the resize off the CPU. Larger images (a 12-megapixel photo is 18 MB of planes
// against a 3 MB tensor) and the steps that read every pixel (grayscale, contrast, centre crop) stay on
// the CPU.
import {
  inputPlan,
  isYCbCr,
  linearAxis,
  type PixelImage,
  type PreprocessMeta,
  type PreprocessSpec,
  type YCbCrImage,
} from '../src/pipeline/index.js';
import { ComputePass, dispatchSize, WORKGROUP } from './gpu-pass.js';

const SHADER = /* wgsl */ `
struct Params {
  W: u32, H: u32, dstX: u32, dstY: u32,
  copyW: u32, copyH: u32, fill: u32, kind: u32,
  channels: u32, rowStride: u32, cropX: u32, cropY: u32,
  yOff: u32, yStride: u32, cbOff: u32, cbStride: u32,
  crOff: u32, crStride: u32, chromaW: u32, chromaH: u32,
  order0: u32, order1: u32, order2: u32, groupsX: u32,
};
@group(0) @binding(0) var<uniform> p: Params;
@group(0) @binding(1) var<storage, read> src: array<u32>;
@group(0) @binding(2) var<storage, read> xAxis: array<vec4<i32>>;   // index0, index1, weight0, weight1
@group(0) @binding(3) var<storage, read> yAxis: array<vec4<i32>>;
@group(0) @binding(4) var<storage, read> tables: array<f32>;        // 3 × 256
@group(0) @binding(5) var<storage, read_write> tensor: array<f32>;

fn byteAt(i: u32) -> i32 { return i32((src[i >> 2u] >> ((i & 3u) * 8u)) & 255u); }

// kind 1: 4:4:4, 2: 4:2:2, 3: 4:2:0 (jdsample.c's fancy upsampling; edges repeat their samples).
fn chromaAt(off: u32, stride: u32, x: u32, y: u32) -> i32 {
  if (p.kind == 1u) { return byteAt(off + y * stride + x); }
  let c = x >> 1u;
  let odd = (x & 1u) == 1u;
  let side = select(select(c - 1u, 0u, c == 0u), min(c + 1u, p.chromaW - 1u), odd);
  if (p.kind == 2u) {
    return (3 * byteAt(off + y * stride + c) + byteAt(off + y * stride + side) + select(1, 2, odd)) >> 2u;
  }
  let near = y >> 1u;
  let far = select(select(near - 1u, 0u, near == 0u), min(near + 1u, p.chromaH - 1u), (y & 1u) == 1u);
  let here = 3 * byteAt(off + near * stride + c) + byteAt(off + far * stride + c);
  let beside = 3 * byteAt(off + near * stride + side) + byteAt(off + far * stride + side);
  return (3 * here + beside + select(8, 7, odd)) >> 4u;
}

// One image pixel's R, G, B (kind 0: interleaved bytes; else jdcolor.c's fixed-point conversion).
fn rgbAt(x: u32, y: u32) -> vec3<i32> {
  if (p.kind == 0u) {
    let i = y * p.rowStride + x * p.channels;
    return vec3<i32>(byteAt(i), byteAt(i + 1u), byteAt(i + 2u));
  }
  let l = byteAt(p.yOff + y * p.yStride + x);
  let cb = chromaAt(p.cbOff, p.cbStride, x, y) - 128;
  let cr = chromaAt(p.crOff, p.crStride, x, y) - 128;
  let rgb = vec3<i32>(l + ((91881 * cr + 32768) >> 16u), l + ((-22554 * cb + 32768 - 46802 * cr) >> 16u), l + ((116130 * cb + 32768) >> 16u));
  return clamp(rgb, vec3<i32>(0), vec3<i32>(255));
}

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let index = gid.y * p.groupsX * ${WORKGROUP}u + gid.x;
  let area = p.W * p.H;
  if (index >= area) { return; }
  let x = index % p.W;
  let y = index / p.W;
  var v = vec3<i32>(i32(p.fill));
  if (x >= p.dstX && y >= p.dstY && x < p.dstX + p.copyW && y < p.dstY + p.copyH) {
    // OpenCV's INTER_LINEAR on 8 bits: exact integer rows across, its vectorised rounding down.
    let a = xAxis[x - p.dstX];
    let b = yAxis[y - p.dstY];
    let x0 = u32(a.x) + p.cropX;
    let x1 = u32(a.y) + p.cropX;
    let y0 = u32(b.x) + p.cropY;
    let y1 = u32(b.y) + p.cropY;
    let s0 = rgbAt(x0, y0) * a.z + rgbAt(x1, y0) * a.w;
    let s1 = rgbAt(x0, y1) * a.z + rgbAt(x1, y1) * a.w;
    v = clamp(((((s0 >> vec3<u32>(4u)) * b.z) >> vec3<u32>(16u)) + (((s1 >> vec3<u32>(4u)) * b.w) >> vec3<u32>(16u)) + vec3<i32>(2)) >> vec3<u32>(2u), vec3<i32>(0), vec3<i32>(255));
  }
  let order = vec3<u32>(p.order0, p.order1, p.order2);
  for (var c = 0u; c < 3u; c++) { tensor[c * area + index] = tables[c * 256u + u32(v[order[c]])]; }
}
`;

export interface GpuInput {
  /** The network input, `[1, 3, H, W]` float32; the caller destroys it after the run. */
  buffer: GPUBuffer;
  meta: PreprocessMeta;
}

export class GpuPreprocessor {
  readonly #device: GPUDevice;
  readonly #pass: ComputePass;
  readonly #anySize: boolean;
  /** Set when a pass was rejected (device limits): preprocessing stays on the CPU from then on. */
  #failed = false;

  /** `anySize`: take images larger than the tensor too (the benchmark measures whether that would pay). */
  constructor(device: GPUDevice, options: { anySize?: boolean } = {}) {
    this.#device = device;
    this.#pass = new ComputePass(device, SHADER);
    this.#anySize = options.anySize ?? false;
  }

  /** The network input on the GPU, or null where the CPU preprocesses this image (see the top). */
  async prepare(image: PixelImage | YCbCrImage, spec: PreprocessSpec): Promise<GpuInput | null> {
    if (this.#failed || spec.grayscale || spec.contrast !== null || spec.resize.mode === 'center-crop') return null;
    const source = sourceOf(image);
    const { width: W, height: H } = spec.resize;
    if (!source || (!this.#anySize && source.bytes.byteLength > 3 * W * H * 4)) return null;
    const { crop, geometry, tables, order, meta } = inputPlan(image.width, image.height, spec);
    const axis = (a: ReturnType<typeof linearAxis>) => {
      const out = new Int32Array(a.index0.length * 4);
      for (let i = 0; i < a.index0.length; i++) out.set([a.index0[i]!, a.index1[i]!, a.weight0[i]!, a.weight1[i]!], i * 4);
      return out;
    };
    const area = W * H;
    const size = dispatchSize(area);
    const params = new Uint32Array(24);
    params.set([W, H, geometry.dstX, geometry.dstY, geometry.copyWidth, geometry.copyHeight, geometry.fill, source.kind]);
    params.set(source.layout, 8);
    params[10] = crop.x;
    params[11] = crop.y;
    params.set([...order, size.groupsX], 20);
    const allTables = new Float32Array(768);
    tables.forEach((t, c) => allTables.set(t, c * 256));

    const output = this.#device.createBuffer({
      size: 3 * area * 4,
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
    });
    const invalid = await this.#pass.submit(
      (upload) => [
        { buffer: upload(params, GPUBufferUsage.UNIFORM) },
        { buffer: upload(source.bytes, GPUBufferUsage.STORAGE) },
        { buffer: upload(axis(linearAxis(crop.width, geometry.scaledWidth, true)), GPUBufferUsage.STORAGE) },
        { buffer: upload(axis(linearAxis(crop.height, geometry.scaledHeight, false)), GPUBufferUsage.STORAGE) },
        { buffer: upload(allTables, GPUBufferUsage.STORAGE) },
        { buffer: output },
      ],
      size,
    );
    if (invalid) {
      output.destroy();
      this.#failed = true;
      return null;
    }
    return { buffer: output, meta };
  }
}

/** What the shader reads for an image: its bytes, their kind, and their layout (Params from `channels` to `chromaH`). */
function sourceOf(image: PixelImage | YCbCrImage): { bytes: Uint8Array | Uint8ClampedArray; kind: number; layout: number[] } | null {
  if (!isYCbCr(image)) {
    // channels, rowStride, cropX and cropY (set by the caller); the plane fields are unused.
    return { bytes: image.data, kind: 0, layout: [image.channels, image.width * image.channels, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] };
  }
  const { y, cb, cr, chroma } = image;
  // The planes must share one buffer (ImageDecoder's copyTo lays them out in one).
  if (cb.data !== y.data || cr.data !== y.data) return null;
  const kind = chroma.h === 1 ? 1 : chroma.v === 1 ? 2 : 3;
  const chromaW = Math.ceil(image.width / chroma.h);
  const chromaH = Math.ceil(image.height / chroma.v);
  return { bytes: y.data, kind, layout: [0, 0, 0, 0, y.offset, y.stride, cb.offset, cb.stride, cr.offset, cr.stride, chromaW, chromaH] };
}

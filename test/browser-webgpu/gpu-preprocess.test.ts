// Preprocessing on the GPU (workers/gpu-preprocess.ts) writes the tensor that preprocess() computes on
// the CPU, value for value: RGBA pixels and a JPEG's planes in every chroma layout, every resize mode it
// takes, static crop, both channel orders, with and without normalisation.
import { beforeAll, describe, expect, test } from 'vitest';
import { preprocess, type PixelImage, type PreprocessSpec, type YCbCrImage } from '../../src/pipeline/index.js';
import { GpuPreprocessor } from '../../workers/gpu-preprocess.js';
import { jpegPlanes } from '../../src/decode/decode-in-worker.js';
import { readImageHeader } from '../../src/decode/image-header.js';

let device: GPUDevice;
let pre: GpuPreprocessor;
beforeAll(async () => {
  const adapter = await navigator.gpu.requestAdapter();
  device = await adapter!.requestDevice();
  pre = new GpuPreprocessor(device);
});

async function readBack(buffer: GPUBuffer): Promise<Float32Array> {
  const read = device.createBuffer({ size: buffer.size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const encoder = device.createCommandEncoder();
  encoder.copyBufferToBuffer(buffer, 0, read, 0, buffer.size);
  device.queue.submit([encoder.finish()]);
  await read.mapAsync(GPUMapMode.READ);
  const values = new Float32Array(read.getMappedRange().slice(0));
  read.destroy();
  buffer.destroy();
  return values;
}

let seed = 5;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const rgba = (width: number, height: number): PixelImage => ({
  data: Uint8ClampedArray.from({ length: width * height * 4 }, (_, i) =>
    i % 4 === 3 ? 255 : random() < 0.3 ? (i * 13) % 256 : Math.floor(random() * 256),
  ),
  width,
  height,
  channels: 4,
});
const jpeg = async (file: string): Promise<YCbCrImage> => {
  const bytes = new Uint8Array(await (await fetch(`/test/fixtures/jpeg/${file}`)).arrayBuffer());
  return (await jpegPlanes(bytes, readImageHeader(bytes)))!;
};

const base: PreprocessSpec = {
  staticCrop: null,
  grayscale: false,
  contrast: null,
  resize: { mode: 'stretch', width: 64, height: 48, paddingValue: 0 },
  colorMode: 'rgb',
  scalingFactor: 255,
  normalization: { mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225] },
};
const specs: [string, PreprocessSpec][] = [
  ['stretch', base],
  [
    'letterbox, BGR, no normalisation',
    { ...base, resize: { ...base.resize, mode: 'letterbox', paddingValue: 127 }, colorMode: 'bgr', normalization: null },
  ],
  [
    'static crop, upscaling',
    { ...base, staticCrop: { xMin: 10, yMin: 15, xMax: 70, yMax: 95 }, resize: { ...base.resize, width: 128, height: 96 } },
  ],
];
const images: [string, () => Promise<PixelImage | YCbCrImage>][] = [
  ['RGBA 97×61', () => Promise.resolve(rgba(97, 61))],
  ['JPEG 4:2:0 97×61', () => jpeg('ycc420-97x61.jpg')],
  ['JPEG 4:2:2 97×61', () => jpeg('ycc422-97x61.jpg')],
  ['JPEG 4:4:4 64×47', () => jpeg('ycc444-64x47.jpg')],
  ['progressive JPEG 101×67', () => jpeg('progressive-101x67.jpg')],
];

describe('the GPU writes the CPU tensor', () => {
  for (const [label, make] of images) {
    for (const [name, spec] of specs) {
      test(`${label}, ${name}`, async () => {
        const image = await make();
        const gpu = await pre.prepare(image, spec);
        expect(gpu).not.toBeNull();
        const cpu = preprocess(image, spec);
        expect(gpu!.meta).toEqual(cpu.meta);
        const values = await readBack(gpu!.buffer);
        let differing = 0;
        for (let i = 0; i < cpu.tensor.length; i++) if (values[i] !== cpu.tensor[i]) differing++;
        expect({ differing, of: cpu.tensor.length }).toEqual({ differing: 0, of: values.length });
      });
    }
  }
});

describe('what stays on the CPU', () => {
  test('steps that read every pixel, and the centre crop', async () => {
    const image = rgba(97, 61);
    expect(await pre.prepare(image, { ...base, grayscale: true })).toBeNull();
    expect(await pre.prepare(image, { ...base, contrast: 'contrast-stretching' })).toBeNull();
    expect(await pre.prepare(image, { ...base, resize: { ...base.resize, mode: 'center-crop' } })).toBeNull();
  });

  test('an image with more bytes than the tensor (the upload would not pay by itself)', async () => {
    // 64×48×3 float32 = 36,864 bytes; 97×96 RGBA = 37,248, 96×96 RGBA = 36,864.
    expect(await pre.prepare(rgba(97, 96), base)).toBeNull();
    const small = await pre.prepare(rgba(96, 96), base);
    expect(small).not.toBeNull();
    small!.buffer.destroy();
  });

  test("anySize (the benchmark's) takes the larger image, and writes the CPU tensor", async () => {
    const image = rgba(97, 96);
    const gpu = await new GpuPreprocessor(device, { anySize: true }).prepare(image, base);
    expect(gpu).not.toBeNull();
    expect(await readBack(gpu!.buffer)).toEqual(preprocess(image, base).tensor);
  });
});

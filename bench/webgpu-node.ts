// The WebGPU benchmark without a browser, for a machine with a GPU and no display: edgeseg's `webgpu`
// backend against onnxruntime-web's WebGPU execution provider alone, in Node through Dawn (npm `webgpu`).
//
//   npm run bench:models && npm run bench:webgpu-node        # bench/out/webgpu-node.{json,md}
//   npm run bench:webgpu-node -- --runs 30 --warmup 5 --models shapes,lraspp --sizes 640x480,1024x768
//
// edgeseg runs through the worker's own code: createWebgpuRunner (workers/webgpu-runner.ts: the session
// with its logits left on the GPU, the GPU preprocessing and postprocessing passes) and segmentPixels
// with that runner's `run` and `prepare`, as workers/segment-worker.ts calls them; segment() adds the
// payload (buildPayload: PNG + base64). The image arrives decoded (the browser decodes with its own
// ImageDecoder; the figures in bench/RESULTS.md give that stage), as RGB bytes: on the GPU path where its
// bytes are no more than the tensor's, on the CPU path otherwise (the rule of gpu-preprocess.ts).
// The model alone: an InferenceSession of the same build, execution provider and graph optimisation,
// default options (its outputs come back to the CPU inside session.run), on the tensor edgeseg's CPU
// preprocessing makes of the same image. The three are interleaved in one process on one GPU device.
//
// Checks: edgeseg's class ids against the CPU reference (onnxruntime-node where it loads, else Python's
// onnxruntime: the full graph on the CPU, then classIdsFromLogits, as the hosted route computes them),
// and the model-alone logits against the CPU's. For images larger than the tensor, the GPU preprocessing
// pass is also timed and compared (bit for bit) with the CPU's, to see whether taking them would pay, and
// again on crops of the largest image from 640×480 up (the sweep). Session creation is split into the
// device and onnxruntime's InferenceSession.create.
//
// Environment: EDGESEG_ORT_WASM (onnxruntime-web's asyncify .wasm, when not in node_modules),
// EDGESEG_PYTHON (default python3: the fallback decoder, OpenCV, and the fallback reference),
// EDGESEG_DAWN_FLAGS (space-separated Dawn toggles, e.g. `backend=vulkan`).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { create, globals } from 'webgpu';
import { loadModel } from '../src/model/load-model.js';
import { readPackageDir } from '../src/node/read-package-dir.js';
import { buildPayload } from '../src/payload/index.js';
import {
  classIdsFromLogits,
  DEFAULT_CONFIDENCE,
  preprocess,
  segmentPixels,
  type Logits,
  type PixelImage,
  type PrepareInput,
} from '../src/pipeline/index.js';
import { GpuPreprocessor } from '../workers/gpu-preprocess.js';
import { createWebgpuRunner } from '../workers/webgpu-runner.js';
import { IMAGE_SIZES, imagePath, MODELS, ROOT } from './paths.js';
import { ms, spread, summarize, table, type Summary } from './stats.js';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const RUNS = Number(arg('runs') ?? 30);
const WARMUP = Number(arg('warmup') ?? 5);
const MODEL_KEYS = (arg('models') ?? 'shapes,lraspp').split(',') as (keyof typeof MODELS)[];
const SIZES = (arg('sizes') ?? IMAGE_SIZES.join(',')).split(',');
const OUT_DIR = arg('out') ?? join(ROOT, 'bench', 'out');
const PYTHON = process.env.EDGESEG_PYTHON ?? 'python3';
/** Image sizes of the GPU-preprocessing sweep (crops of the largest image). */
const SWEEP = [
  [640, 480],
  [1024, 768],
  [1280, 960],
  [1920, 1440],
  [2560, 1920],
  [4032, 3024],
] as const;
const now = () => performance.now();

// Dawn's GPU objects in place of the browser's, before onnxruntime-web is loaded (it looks for them).
Object.assign(globalThis, globals);
const gpu = create((process.env.EDGESEG_DAWN_FLAGS ?? '').split(' ').filter(Boolean));
// hardwareConcurrency: onnxruntime-web derives its default thread count from it (the runner sets 1).
Object.defineProperty(globalThis, 'navigator', { value: { gpu, hardwareConcurrency: 1 }, configurable: true });
// Dawn's writeBuffer refuses SharedArrayBuffer-backed data, which is what onnxruntime-web's threaded wasm
// memory is: such data is copied into a plain buffer first (a copy a browser does not need).
const GPUQueueClass = (globals as unknown as { GPUQueue: { prototype: GPUQueue } }).GPUQueue;
// eslint-disable-next-line @typescript-eslint/unbound-method -- the original, called below with the queue as `this`.
const writeBuffer = GPUQueueClass.prototype.writeBuffer as (this: GPUQueue, ...args: unknown[]) => undefined;
GPUQueueClass.prototype.writeBuffer = function (
  this: GPUQueue,
  buffer: GPUBuffer,
  offset: number,
  data: BufferSource | SharedArrayBuffer,
  ...rest: number[]
) {
  if (data instanceof SharedArrayBuffer) data = new Uint8Array(data).slice().buffer;
  else if (ArrayBuffer.isView(data) && data.buffer instanceof SharedArrayBuffer) {
    const View = data.constructor as new (a: ArrayBufferView) => ArrayBufferView<ArrayBuffer>;
    data = new View(data);
  }
  return writeBuffer.call(this, buffer, offset, data, ...rest);
};

/** Time spent in the calls a backend's creation is made of (adapter, device, session), summed per name. */
const spans: Record<string, number> = {};
function timeCalls(owner: object, key: string, name: string): void {
  const target = owner as Record<string, (...a: unknown[]) => Promise<unknown>>;
  const call = target[key]!;
  target[key] = async function (this: unknown, ...a: unknown[]) {
    const t0 = now();
    try {
      return await call.apply(this, a);
    } finally {
      spans[name] = (spans[name] ?? 0) + now() - t0;
    }
  };
}
const gpuGlobals = globals as unknown as { GPU: { prototype: object }; GPUAdapter: { prototype: object } };
timeCalls(gpuGlobals.GPU.prototype, 'requestAdapter', 'requestAdapter');
timeCalls(gpuGlobals.GPUAdapter.prototype, 'requestDevice', 'requestDevice');

type OrtWeb = typeof import('onnxruntime-web');
async function ortWeb(): Promise<OrtWeb> {
  // The entry the worker loads (webgpu-runner.ts imports the same), its wasm given as bytes: in Node
  // onnxruntime-web cannot fetch it.
  const ort = (await import('onnxruntime-web/webgpu')) as unknown as OrtWeb;
  if (!ort.env.wasm.wasmBinary) {
    timeCalls(ort.InferenceSession, 'create', 'session');
    const path =
      process.env.EDGESEG_ORT_WASM ?? createRequire(import.meta.url).resolve('onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm');
    ort.env.wasm.wasmBinary = readFileSync(path);
  }
  return ort;
}

/** The image as RGB bytes: sharp (edgeseg's Node decoder), else OpenCV through Python. */
async function decoded(path: string): Promise<PixelImage> {
  try {
    const { decodeImage } = await import('../src/decode/decode-node.js');
    return await decodeImage(new Uint8Array(readFileSync(path)));
  } catch (error) {
    if (!/sharp/i.test(String((error as Error).message ?? error))) throw error;
  }
  const dir = mkdtempSync(join(tmpdir(), 'edgeseg-px-'));
  try {
    const code =
      'import sys, cv2\nim = cv2.imread(sys.argv[1], cv2.IMREAD_COLOR)\nim[:, :, ::-1].tofile(sys.argv[2])\nprint(im.shape[1], im.shape[0])';
    const [width, height] = python(code, [path, join(dir, 'rgb')])
      .trim()
      .split(' ')
      .map(Number);
    return { data: new Uint8Array(readFileSync(join(dir, 'rgb'))), width: width!, height: height!, channels: 3 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function python(code: string, args: string[]): string {
  const r = spawnSync(PYTHON, ['-c', code, ...args], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`${PYTHON} failed: ${r.error?.message ?? r.stderr}`);
  return r.stdout;
}

/** The full graph's logits on the CPU for each input: onnxruntime-node, else Python's onnxruntime. */
async function cpuLogits(
  weightsPath: string,
  weights: Uint8Array,
  inputs: Float32Array[],
  dims: number[],
): Promise<{ runtime: string; outputs: { data: Float32Array; dims: number[] }[] }> {
  try {
    const ort = await import('onnxruntime-node');
    const session = await ort.InferenceSession.create(weights, { executionProviders: ['cpu'], graphOptimizationLevel: 'all' });
    const outputs = [];
    for (const data of inputs) {
      const out = (await session.run({ [session.inputNames[0]!]: new ort.Tensor('float32', data, dims) }))[session.outputNames[0]!]!;
      outputs.push({ data: out.data as Float32Array, dims: [...out.dims] });
    }
    await session.release();
    return { runtime: `onnxruntime-node ${ort.env.versions.node ?? ''}`.trim(), outputs };
  } catch (error) {
    if (!/onnxruntime|binding|Cannot find/i.test(String((error as Error).message ?? error))) throw error;
  }
  const dir = mkdtempSync(join(tmpdir(), 'edgeseg-ref-'));
  try {
    inputs.forEach((data, i) => writeFileSync(join(dir, `in${i}`), data));
    const code = [
      'import sys, json, numpy as np, onnxruntime as ort',
      's = ort.InferenceSession(sys.argv[1], providers=["CPUExecutionProvider"])',
      'dims = json.loads(sys.argv[3])',
      'for i in range(int(sys.argv[4])):',
      '    y = s.run(None, {s.get_inputs()[0].name: np.fromfile(f"{sys.argv[2]}/in{i}", dtype=np.float32).reshape(dims)})[0]',
      '    y.astype(np.float32).tofile(f"{sys.argv[2]}/out{i}")',
      '    print(json.dumps(list(y.shape)))',
      'print(ort.__version__)',
    ].join('\n');
    const lines = python(code, [weightsPath, dir, JSON.stringify(dims), String(inputs.length)])
      .trim()
      .split('\n');
    const version = lines.pop()!;
    const outputs = lines.map((l, i) => {
      const b = readFileSync(join(dir, `out${i}`));
      return { data: new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4).slice(), dims: JSON.parse(l) as number[] };
    });
    return { runtime: `onnxruntime (Python) ${version}`, outputs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const asLogits = (o: { data: Float32Array; dims: number[] }): Logits => ({
  data: o.data,
  channels: o.dims[1]!,
  height: o.dims[2]!,
  width: o.dims[3]!,
});

function equalShare(a: Uint8Array, b: Uint8Array): number {
  let same = 0;
  for (let i = 0; i < a.length; i++) if (a[i] === b[i]) same++;
  return a.length === b.length ? same / a.length : 0;
}

/** ‖a − b‖ / ‖b‖ and the largest |a − b|. */
function difference(a: Float32Array, b: Float32Array): { relative: number; maxAbs: number } {
  let num = 0;
  let den = 0;
  let maxAbs = 0;
  for (let i = 0; i < b.length; i++) {
    const d = a[i]! - b[i]!;
    num += d * d;
    den += b[i]! * b[i]!;
    maxAbs = Math.max(maxAbs, Math.abs(d));
  }
  return { relative: Math.sqrt(num / den), maxAbs };
}

interface Row {
  model: string;
  image: string;
  gpuPreprocess: boolean;
  edgeseg: Summary;
  raw: Summary;
  alone: Summary;
  stages: Record<string, number>;
  ratio: number;
  rawRatio: number;
  equalShare: number;
  aloneLogits: { relative: number; maxAbs: number };
  /** Images larger than the tensor: the GPU pass forced, against the CPU's preprocessing + upload. */
  largeImage?: { cpu: Summary; gpu: Summary; tensorsEqual: boolean };
}

async function main() {
  const missing = [...MODEL_KEYS.map((k) => join(MODELS[k].dir, 'weights.onnx')), ...SIZES.map(imagePath)].filter((p) => !existsSync(p));
  if (missing.length) throw new Error(`missing ${missing.join(', ')}: run \`npm run bench:models\` first`);
  const started = now();
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) throw new Error('Dawn found no GPU adapter (no GPU, or no Vulkan loader and driver)');
  // What the first session of a process pays besides the session itself: a device, and compiling
  // onnxruntime's wasm (V8's baseline compile here, as a browser without a cached copy does).
  (await adapter.requestDevice()).destroy();
  const startup = { adapterAndDevice: now() - started, wasmCompile: 0 };
  const info = adapter.info as GPUAdapterInfo & { isFallbackAdapter?: boolean; driver?: string };
  const adapterInfo = {
    vendor: info.vendor,
    architecture: info.architecture,
    device: info.device,
    description: info.description,
    isFallbackAdapter: info.isFallbackAdapter ?? false,
    features: [...adapter.features].sort(),
    maxBufferSize: adapter.limits.maxBufferSize,
    maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
  };
  console.log(`adapter: ${JSON.stringify(adapterInfo)}`);
  const ort = await ortWeb();
  const t = now();
  await WebAssembly.compile(ort.env.wasm.wasmBinary as Uint8Array<ArrayBuffer>);
  startup.wasmCompile = now() - t;
  console.log(`startup: ${JSON.stringify(startup)}`);
  const confidence = DEFAULT_CONFIDENCE;
  const rows: Row[] = [];
  const sweep: ({ model: string; image: string; sourceMB: number; tensorMB: number } & Awaited<ReturnType<typeof largeImage>>)[] = [];
  const sessions: Record<
    string,
    { edgesegCreate: number; aloneCreate: number; edgesegFirst: number; aloneFirst: number; edgesegSpans: Record<string, number> }
  > = {};
  let reference = '';
  // Decoded once: only preprocessing depends on the model.
  const images = await Promise.all(SIZES.map(async (size) => ({ size, pixels: await decoded(imagePath(size)) })));

  for (const key of MODEL_KEYS) {
    const m = MODELS[key];
    // edgeseg's backend, as the worker creates it (adapter, device, session with GPU-located logits),
    // loaded as the worker loads it.
    let edgesegCreate = 0;
    let t = 0;
    let weights: Uint8Array = new Uint8Array(0);
    const { spec, runner, classMap, model } = await loadModel(await readPackageDir(m.dir), async (onnx) => {
      const w = onnx.bytes();
      weights = w;
      for (const k of Object.keys(spans)) spans[k] = 0;
      t = now();
      const created = await createWebgpuRunner(w, 1, undefined);
      edgesegCreate = now() - t;
      return created.runner;
    });
    const edgesegSpans = { ...spans };
    let usedGpuPre = false;
    const prepare: PrepareInput = async (image, s) => {
      const p = await runner.prepare!(image, s);
      usedGpuPre = p !== null;
      return p;
    };
    const input = new Float32Array(3 * spec.preprocess.resize.width * spec.preprocess.resize.height);
    const segmentRaw = (image: PixelImage) => segmentPixels(image, model, runner.run, { confidence, input, prepare });

    // The model alone: same build, EP and optimisation, outputs to the CPU (the default) within run().
    t = now();
    const session = await ort.InferenceSession.create(weights, { executionProviders: ['webgpu'], graphOptimizationLevel: 'all' });
    const aloneCreate = now() - t;
    const device = await ort.env.webgpu.device;
    const inputName = session.inputNames[0]!;
    const alone = async (tensor: Float32Array, dims: number[]) => {
      const outputs = await session.run({ [inputName]: new ort.Tensor('float32', tensor, dims) });
      const out = Object.values(outputs)[0]!;
      const data = (await out.getData(true)) as Float32Array;
      for (const o of Object.values(outputs)) if (o !== out) o.dispose();
      return data;
    };

    const cpuInputs = images.map(({ pixels }) => preprocess(pixels, spec.preprocess));
    const dims = [1, 3, spec.preprocess.resize.height, spec.preprocess.resize.width];
    const ref = await cpuLogits(
      join(m.dir, 'weights.onnx'),
      weights,
      cpuInputs.map((c) => c.tensor),
      dims,
    );
    reference = ref.runtime;

    t = now();
    await segmentRaw(images[0]!.pixels);
    const edgesegFirst = now() - t;
    t = now();
    await alone(cpuInputs[0]!.tensor, dims);
    const aloneFirst = now() - t;
    sessions[m.label] = { edgesegCreate, aloneCreate, edgesegFirst, aloneFirst, edgesegSpans };
    console.log(
      `${m.label}: session creation edgeseg ${ms(edgesegCreate)} ms (${Object.entries(edgesegSpans)
        .map(([k, v]) => `${k} ${ms(v)}`)
        .join(
          ', ',
        )}) (first mask ${ms(edgesegFirst)}), model alone ${ms(aloneCreate)} ms (first run ${ms(aloneFirst)}); reference ${ref.runtime}`,
    );

    for (const [i, { size, pixels }] of images.entries()) {
      const { tensor, meta } = cpuInputs[i]!;
      const post = { confidence, classCount: model.classCount, backgroundClassId: model.backgroundClassId };
      const refIds = classIdsFromLogits(asLogits(ref.outputs[i]!), meta, post);
      const times = { edgeseg: [] as number[], raw: [] as number[], alone: [] as number[] };
      const stages: Record<string, number[]> = {};
      let ids: Uint8Array | null = null;
      let aloneOut: Float32Array | null = null;
      const steps = {
        raw: async () => {
          const r = await segmentRaw(pixels);
          ids = r.classIds;
          return r.timings;
        },
        edgeseg: async () => {
          const r = await segmentRaw(pixels);
          const t1 = now();
          buildPayload({ classIds: r.classIds, width: r.width, height: r.height, class_map: classMap });
          return { encode: now() - t1 };
        },
        alone: async () => {
          aloneOut = await alone(tensor, dims);
          return null;
        },
      };
      const order = ['raw', 'edgeseg', 'alone'] as const;
      for (let n = -WARMUP; n < RUNS; n++) {
        // Interleaved, with the order rotated each round so that none always follows the same one.
        for (let k = 0; k < 3; k++) {
          const step = order[(k + n + WARMUP) % 3]!;
          const t0 = now();
          const timings = await steps[step]();
          const elapsed = now() - t0;
          if (n < 0) continue;
          times[step].push(elapsed);
          if (timings)
            for (const [s, v] of Object.entries(timings as Partial<Record<string, number>>))
              if (v !== undefined) (stages[s] ??= []).push(v);
        }
      }
      const row: Row = {
        model: m.label,
        image: size,
        gpuPreprocess: usedGpuPre,
        edgeseg: summarize(times.edgeseg),
        raw: summarize(times.raw),
        alone: summarize(times.alone),
        stages: Object.fromEntries(Object.entries(stages).map(([s, v]) => [s, summarize(v).median])),
        ratio: 0,
        rawRatio: 0,
        equalShare: equalShare(ids!, refIds),
        aloneLogits: difference(aloneOut!, ref.outputs[i]!.data),
      };
      row.ratio = row.edgeseg.median / row.alone.median;
      row.rawRatio = row.raw.median / row.alone.median;
      if (!usedGpuPre) row.largeImage = await largeImage(device, pixels, spec.preprocess, tensor);
      rows.push(row);
      console.log(
        `${m.label} ${size}: segment() ${spread(row.edgeseg)} · segmentRaw() ${spread(row.raw)} · model alone ${spread(row.alone)} ms · ` +
          `÷ alone ${row.ratio.toFixed(2)} (raw ${row.rawRatio.toFixed(2)}) · GPU preprocessing ${usedGpuPre ? 'yes' : 'no'} · mask = CPU on ${(100 * row.equalShare).toFixed(4)}% · ` +
          `model-alone logits vs CPU: rel ${row.aloneLogits.relative.toExponential(2)}, max ${row.aloneLogits.maxAbs.toExponential(2)}` +
          (row.largeImage
            ? ` · large image: CPU preprocess + upload ${spread(row.largeImage.cpu)}, GPU pass ${spread(row.largeImage.gpu)} (tensors equal: ${row.largeImage.tensorsEqual})`
            : ''),
      );
    }
    // The GPU pass against the CPU's by image size: crops of the largest image.
    const largest = images.reduce((a, b) => (a.pixels.width * a.pixels.height >= b.pixels.width * b.pixels.height ? a : b)).pixels;
    for (const [w, h] of SWEEP) {
      if (w > largest.width || h > largest.height) continue;
      const crop = cropOf(largest, w, h);
      const r = await largeImage(device, crop, spec.preprocess, preprocess(crop, spec.preprocess).tensor, 20, 3);
      sweep.push({ model: m.label, image: `${w}x${h}`, sourceMB: crop.data.byteLength / 1e6, tensorMB: (4 * input.length) / 1e6, ...r });
      console.log(
        `GPU preprocessing ${m.label} ${w}x${h} (${(crop.data.byteLength / 1e6).toFixed(1)} MB RGB): CPU + upload ${spread(r.cpu)}, GPU pass ${spread(r.gpu)}, equal ${r.tensorsEqual}`,
      );
    }
    await session.release();
    await runner.dispose();
  }

  const results = {
    date: new Date().toISOString(),
    node: process.version,
    onnxruntimeWeb: ort.env.versions.web ?? '?',
    adapter: adapterInfo,
    reference,
    startup,
    sweep,
    runs: RUNS,
    warmup: WARMUP,
    confidence,
    sessions,
    rows,
    seconds: (now() - started) / 1000,
  };
  mkdirSync(OUT_DIR, { recursive: true });
  writeFileSync(join(OUT_DIR, 'webgpu-node.json'), JSON.stringify(results, null, 1));
  const md = report(results);
  writeFileSync(join(OUT_DIR, 'webgpu-node.md'), md);
  console.log(`\n${md}`);
}

/**
 * An image the CPU preprocesses (larger than the tensor): what the CPU path costs to put the tensor on
 * the GPU (preprocess() + writeBuffer + the queue done) against the GPU pass forced (its bytes uploaded +
 * the shader), and whether the two tensors are equal bit for bit.
 */
async function largeImage(
  device: GPUDevice,
  pixels: PixelImage,
  spec: Parameters<typeof preprocess>[1],
  cpuTensor: Float32Array,
  runs = RUNS,
  warmup = WARMUP,
) {
  const pre = new GpuPreprocessor(device, { anySize: true });
  const out = new Float32Array(cpuTensor.length);
  const target = device.createBuffer({ size: cpuTensor.byteLength, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  const cpu: number[] = [];
  const gpuTimes: number[] = [];
  let last: GPUBuffer | null = null;
  for (let n = -warmup; n < runs; n++) {
    let t0 = now();
    preprocess(pixels, spec, out);
    device.queue.writeBuffer(target, 0, out);
    await device.queue.onSubmittedWorkDone();
    if (n >= 0) cpu.push(now() - t0);
    t0 = now();
    const prepared = await pre.prepare(pixels, spec);
    if (!prepared) throw new Error('the GPU preprocessing pass was rejected');
    await device.queue.onSubmittedWorkDone();
    if (n >= 0) gpuTimes.push(now() - t0);
    last?.destroy();
    last = prepared.buffer;
  }
  const read = device.createBuffer({ size: cpuTensor.byteLength, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const encoder = device.createCommandEncoder();
  encoder.copyBufferToBuffer(last!, 0, read, 0, cpuTensor.byteLength);
  device.queue.submit([encoder.finish()]);
  await read.mapAsync(GPUMapMode.READ);
  const gpuTensor = new Float32Array(read.getMappedRange().slice(0));
  read.unmap();
  const tensorsEqual = gpuTensor.every((v, i) => Object.is(v, cpuTensor[i]));
  for (const b of [read, target, last!]) b.destroy();
  return { cpu: summarize(cpu), gpu: summarize(gpuTimes), tensorsEqual };
}

/** The top-left `width × height` of an image, as an image of its own. */
function cropOf(image: PixelImage, width: number, height: number): PixelImage {
  const c = image.channels;
  const data = new Uint8Array(width * height * c);
  for (let y = 0; y < height; y++) data.set(image.data.subarray(y * image.width * c, (y * image.width + width) * c), y * width * c);
  return { data, width, height, channels: c };
}

function report(r: {
  date: string;
  node: string;
  onnxruntimeWeb: string;
  adapter: Record<string, unknown>;
  reference: string;
  runs: number;
  warmup: number;
  sessions: Record<
    string,
    { edgesegCreate: number; aloneCreate: number; edgesegFirst: number; aloneFirst: number; edgesegSpans: Record<string, number> }
  >;
  rows: Row[];
  seconds: number;
  startup: { adapterAndDevice: number; wasmCompile: number };
  sweep: { model: string; image: string; sourceMB: number; tensorMB: number; cpu: Summary; gpu: Summary; tensorsEqual: boolean }[];
}): string {
  const a = r.adapter as {
    vendor: string;
    architecture: string;
    device: string;
    description: string;
    isFallbackAdapter: boolean;
    features: string[];
  };
  const out = [
    `### WebGPU in Node (Dawn), decoded RGB image in; ms, median (p10–p90) of ${r.runs} runs after ${r.warmup} warm-up runs, interleaved\n`,
    `Run on ${r.date.slice(0, 10)}: Node ${r.node}, onnxruntime-web ${r.onnxruntimeWeb} (WebGPU EP), Dawn through npm \`webgpu\`. ` +
      `Adapter: ${a.vendor} / ${a.architecture} / ${a.device || '-'} / ${a.description || '-'}${a.isFallbackAdapter ? ' (fallback adapter)' : ''}; features: ${a.features.join(', ')}. ` +
      `CPU reference: ${r.reference}. The section took ${r.seconds.toFixed(0)} s. \`npm run bench:webgpu-node\`\n`,
    table(
      [
        'model',
        'image',
        'edgeseg segment()',
        'segmentRaw()',
        'model alone (WebGPU EP, logits on the CPU)',
        'segment() ÷ model alone',
        'segmentRaw() ÷ model alone',
        'GPU preprocessing',
        'mask = CPU',
        'model-alone logits vs CPU (relative, max)',
      ],
      r.rows.map((w) => [
        w.model,
        w.image,
        spread(w.edgeseg),
        spread(w.raw),
        spread(w.alone),
        w.ratio.toFixed(2),
        w.rawRatio.toFixed(2),
        w.gpuPreprocess ? 'yes' : 'no (CPU)',
        `${(100 * w.equalShare).toFixed(4)}%`,
        `${w.aloneLogits.relative.toExponential(1)}, ${w.aloneLogits.maxAbs.toExponential(1)}`,
      ]),
    ),
    "\nStages of segmentRaw(), ms (median); `run` submits the model's GPU work, `postprocess` waits for it and the shader:\n",
    table(
      ['model', 'image', 'preprocess', 'run', 'postprocess', 'encode (segment() only: PNG + base64)'],
      r.rows.map((w) => [
        w.model,
        w.image,
        ms(w.stages.preprocess ?? 0),
        ms(w.stages.run ?? 0),
        ms(w.stages.postprocess ?? 0),
        ms(w.stages.encode ?? 0),
      ]),
    ),
    '\nSession creation (edgeseg: adapter, device and session; the model alone: the session on that device), ms:\n',
    table(
      [
        'model',
        'edgeseg createWebgpuRunner',
        'of which requestDevice',
        'of which InferenceSession.create',
        'first mask',
        'model alone create',
        'first run',
      ],
      Object.entries(r.sessions).map(([k, s]) => [
        k,
        ms(s.edgesegCreate),
        ms(s.edgesegSpans.requestDevice ?? 0),
        ms(s.edgesegSpans.session ?? 0),
        ms(s.edgesegFirst),
        ms(s.aloneCreate),
        ms(s.aloneFirst),
      ]),
    ),
    `\nBefore the first session: adapter + a device ${ms(r.startup.adapterAndDevice)} ms; compiling onnxruntime-web's wasm (WebAssembly.compile) ${ms(r.startup.wasmCompile)} ms. Models in the order above, in one process: the first session pays for the process's first pipelines.`,
  ];
  const large = r.rows.filter((w) => w.largeImage);
  if (large.length) {
    out.push(
      '\nImages the CPU preprocesses today (larger than the tensor): the CPU path to a tensor on the GPU (preprocess() + writeBuffer) against the GPU pass forced (the image bytes uploaded + the shader), ms:\n',
    );
    out.push(
      table(
        ['model', 'image', 'CPU preprocess + upload', 'GPU pass (forced)', 'tensors equal'],
        large.map((w) => [
          w.model,
          w.image,
          spread(w.largeImage!.cpu),
          spread(w.largeImage!.gpu),
          w.largeImage!.tensorsEqual ? 'yes' : 'NO',
        ]),
      ),
    );
  }
  if (r.sweep.length) {
    out.push(
      '\nGPU preprocessing by image size (top-left crops of the largest image, RGB), 20 runs after 3: the CPU path (preprocess() + writeBuffer of the tensor) against the GPU pass forced (writeBuffer of the image + the shader), ms:\n',
    );
    out.push(
      table(
        ['model', 'image', 'image MB', 'tensor MB', 'CPU preprocess + upload', 'GPU pass', 'GPU ÷ CPU', 'tensors equal'],
        r.sweep.map((w) => [
          w.model,
          w.image,
          w.sourceMB.toFixed(1),
          w.tensorMB.toFixed(1),
          spread(w.cpu),
          spread(w.gpu),
          (w.gpu.median / w.cpu.median).toFixed(2),
          w.tensorsEqual ? 'yes' : 'NO',
        ]),
      ),
    );
  }
  return out.join('\n');
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);

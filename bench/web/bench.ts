// The in-browser half of the benchmark: each function measures one thing and returns raw samples (ms).
// bench/run.ts opens this page in Chromium (cross-origin isolated) and calls them one by one.
import { createSegmenter, PlatformClient, type Segmenter } from 'edgeseg';
import { liteRtRunner, type Runner } from '../../models/people/parity/runtimes.js';
import { liteRtMasks } from './litert-app.js';

declare const __TRANSFORMERS_WASM__: { mjs: string; wasm: string };

const now = () => performance.now();
const bytes = async (url: string) => new Uint8Array(await (await fetch(url)).arrayBuffer());

async function repeat(n: number, warmup: number, body: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await body(-1 - i);
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = now();
    await body(i);
    times.push(now() - t);
  }
  return times;
}

export type LocalBackend = 'wasm' | 'webgpu';

declare const __LITERT_WASM__: string;
const liteRtRunners = new Map<string, Promise<Runner>>();
/** One compiled LiteRT.js model per file, thread count and size (LiteRT's Wasm module is one per page). */
function liteRtFor(c: LiteRtConfig): Promise<Runner> {
  const key = `${c.tflite}@${c.threads}`;
  let runner = liteRtRunners.get(key);
  if (!runner) liteRtRunners.set(key, (runner = liteRtRunner(c.tflite, __LITERT_WASM__, c.height, c.width, c.threads)));
  return runner;
}

export interface LiteRtConfig {
  tflite: string;
  height: number;
  width: number;
  threads: number;
  runs: number;
  warmup: number;
  image?: string;
}

const segmenters = new Map<string, Segmenter>();
/** `threads` undefined: no numThreads given, so the segmenter picks its default, as an app that names none. */
async function segmenterFor(model: string, threads: number | undefined, backend: LocalBackend = 'wasm'): Promise<Segmenter> {
  const key = `${backend}:${model}@${threads ?? 'default'}`;
  let seg = segmenters.get(key);
  if (!seg) {
    seg = await createSegmenter({ model, backends: [backend], ...(threads === undefined ? {} : { numThreads: threads }), cache: false });
    // With one backend in the list there is nothing to fall back to, but a figure labelled webgpu must be
    // a webgpu figure: say so if that ever changes.
    if (seg.backend !== backend) {
      await seg.dispose();
      throw new Error(`asked for ${backend}, got ${seg.backend}: ${seg.fallbacks.map((f) => `${f.backend}: ${f.message}`).join('; ')}`);
    }
    segmenters.set(key, seg);
  }
  return seg;
}

/** Requested as the webgpu backend requests it (workers/webgpu-runner.ts). */
const highPerformanceAdapter = async () =>
  (await (navigator as Navigator & { gpu?: GPU }).gpu?.requestAdapter({ powerPreference: 'high-performance' })) ?? null;

export interface Config {
  model: string;
  hfModel?: string;
  image: string;
  threads: number;
  runs: number;
  warmup: number;
  /** Default wasm. */
  backend?: LocalBackend;
}

const api = {
  /** The WebGPU adapter this browser gives (vendor, architecture, …), or null when it has none. */
  async adapter() {
    const adapter = await highPerformanceAdapter();
    if (!adapter) return null;
    // isFallbackAdapter moved from the adapter to its info; older Chromium has only the former.
    const info = adapter.info as GPUAdapterInfo & { isFallbackAdapter?: boolean };
    const fallback = info.isFallbackAdapter ?? (adapter as GPUAdapter & { isFallbackAdapter?: boolean }).isFallbackAdapter;
    return {
      vendor: info.vendor,
      architecture: info.architecture,
      device: info.device,
      description: info.description,
      ...(fallback === undefined ? {} : { isFallbackAdapter: fallback }),
    };
  },

  /**
   * edgeseg segment() (payload) or segmentRaw(), encoded image in; with the stage breakdown of each run.
   * `defaultThreads`: no numThreads given (the segmenter's own choice, reported in `threads`).
   */
  async edgeseg(c: Config & { raw: boolean; defaultThreads?: boolean }) {
    const seg = await segmenterFor(c.model, c.defaultThreads ? undefined : c.threads, c.backend);
    const image = await bytes(c.image);
    const stages: Record<string, number[]> = {};
    let mask = '';
    const times = await repeat(c.runs, c.warmup, async (i) => {
      if (c.raw) await seg.segmentRaw(image.slice());
      else mask = (await seg.segment(image.slice())).segmentation_mask;
      const timings = seg.lastTimings;
      if (i >= 0 && timings)
        for (const k of ['decode', 'preprocess', 'run', 'postprocess', 'encode', 'total'] as const) {
          const ms = timings[k];
          if (ms !== undefined) (stages[k] ??= []).push(ms);
        }
    });
    // The last payload's mask, which run.ts compares with the hosted route's (the reference), and the
    // threads the segmenter runs (one where the engine cannot run more, whatever was asked).
    return { times, stages, mask, threads: seg.numThreads, choice: seg.threads };
  },

  /**
   * onnxruntime-web session.run alone on a prepared tensor, with the build, execution provider and threads
   * of edgeseg's backend (wasm, or the WebGPU EP). A run ends with the logits on the CPU: the WebGPU EP's
   * outputs are CPU tensors by default (its run waits for the download); a GPU-located one is read back
   * inside the timed run, so the GPU's work is always in the figure. `location` says which it was.
   */
  async ortAlone(c: Config) {
    // One entry only: the WebGPU build for webgpu (as the worker loads it), the plain WASM build otherwise.
    const ort = c.backend === 'webgpu' ? await import('onnxruntime-web/webgpu') : await import('onnxruntime-web/wasm');
    ort.env.wasm.numThreads = c.threads;
    // As the backend asks for its adapter (onnxruntime-web requests its own device from it).
    if (c.backend === 'webgpu') ort.env.webgpu.powerPreference = 'high-performance';
    const weights = await bytes(`${c.model}weights.onnx`);
    const t0 = now();
    const session = await ort.InferenceSession.create(weights, {
      executionProviders: [c.backend ?? 'wasm'],
      graphOptimizationLevel: 'all',
    });
    const create = now() - t0;
    const dims = session.inputMetadata[0]!.isTensor
      ? (session.inputMetadata[0] as { shape: readonly (number | string)[] }).shape.map((d) => (typeof d === 'number' ? d : 1))
      : [1, 3, 256, 256];
    const data = new Float32Array(dims.reduce((a, b) => a * b, 1)).map((_, i) => Math.sin(i) * 0.5);
    const input = { [session.inputNames[0]!]: new ort.Tensor('float32', data, dims) };
    let location = '';
    const run = async () => {
      const outputs = Object.values(await session.run(input));
      location = outputs[0]!.location;
      await Promise.all(outputs.map((t) => t.getData(true)));
    };
    const t1 = now();
    await run();
    const firstRun = now() - t1;
    const times = await repeat(c.runs, c.warmup, run);
    await session.release();
    return { times, create, firstRun, location };
  },

  /** LiteRT.js (XNNPACK) run alone on a prepared NHWC tensor, output read back, as ortAlone does. */
  async litertAlone(c: LiteRtConfig) {
    const t0 = now();
    const run = await liteRtFor(c);
    const create = now() - t0;
    const input = new Float32Array(c.height * c.width * 3).map((_, i) => Math.sin(i) * 0.5 + 0.5);
    const times = await repeat(c.runs, c.warmup, () => run(input));
    return { times, create };
  },

  /** What an app writes around LiteRT.js to get a person mask at the image's size (litert-app.ts), encoded image in. */
  async litertApp(c: LiteRtConfig) {
    const masks = liteRtMasks(await liteRtFor(c), c.height, c.width);
    const image = await bytes(c.image!);
    let ids: Uint8Array = new Uint8Array(0);
    const times = await repeat(c.runs, c.warmup, async () => {
      const bitmap = await createImageBitmap(new Blob([image]));
      ids = await masks(bitmap);
      bitmap.close();
    });
    return { times, personPixels: ids.reduce((n, id) => n + id, 0) };
  },

  /** transformers.js image-segmentation on the same weights, local files only, same threads. */
  async transformers(c: Config) {
    const { pipeline, env } = await import('@huggingface/transformers');
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = '/models/hf/';
    const onnx = env.backends.onnx as { wasm: { numThreads: number; wasmPaths: unknown; proxy: boolean } };
    onnx.wasm.numThreads = c.threads;
    onnx.wasm.wasmPaths = __TRANSFORMERS_WASM__;
    const segmenter = await pipeline('image-segmentation', c.hfModel, { device: 'wasm', dtype: 'fp32' });
    const image = await bytes(c.image);
    const times = await repeat(c.runs, c.warmup, async () => {
      // Encoded image in, as for edgeseg: transformers.js decodes it itself.
      const url = URL.createObjectURL(new Blob([image], { type: 'image/jpeg' }));
      try {
        await segmenter(url);
      } finally {
        URL.revokeObjectURL(url);
      }
    });
    await segmenter.dispose();
    return { times };
  },

  /** The local platform's hosted route over loopback (onnxruntime-node). */
  async hosted(c: Config & { baseUrl: string; inferenceUrl: string; apiKey: string; project: string; version: number }) {
    const platform = new PlatformClient({ apiKey: c.apiKey, baseUrl: c.baseUrl, inferenceUrl: c.inferenceUrl });
    const image = await bytes(c.image);
    let mask = '';
    const times = await repeat(
      c.runs,
      c.warmup,
      async () => (mask = (await platform.segmentHosted(c.project, c.version, image)).segmentation_mask),
    );
    return { times, mask };
  },

  /** Cold start: createSegmenter + first mask, with an empty Cache Storage and then with a warm one. */
  async coldStart(c: Config & { modelUrl: string }) {
    const image = await bytes(c.image);
    const once = async () => {
      const t = now();
      const seg = await createSegmenter({ model: c.modelUrl, backends: ['wasm'], numThreads: c.threads });
      await seg.segment(image.slice());
      const ms = now() - t;
      await seg.dispose();
      return ms;
    };
    await caches.delete('edgeseg-models-v1');
    const empty = await once();
    const warm: number[] = [];
    for (let i = 0; i < 5; i++) warm.push(await once());
    return { empty, warm };
  },

  /** Frames per second on a stream of distinct 640×480 frames, with segmentRaw. */
  async stream(c: Config & { seconds: number; inFlight: number; workers: number }) {
    const source = await createImageBitmap(new Blob([await bytes(c.image)]));
    const canvas = new OffscreenCanvas(640, 480);
    const ctx = canvas.getContext('2d')!;
    const frame = (i: number) => {
      // A moving crop of the image: each frame is new pixels, as a camera gives.
      ctx.drawImage(
        source,
        (i * 7) % Math.max(1, source.width - 640),
        (i * 3) % Math.max(1, source.height - 480),
        640,
        480,
        0,
        0,
        640,
        480,
      );
      return ctx.getImageData(0, 0, 640, 480);
    };
    const segs: Segmenter[] = [];
    for (let w = 0; w < c.workers; w++)
      segs.push(await createSegmenter({ model: c.model, backends: ['wasm'], numThreads: c.threads, cache: false }));
    for (let i = 0; i < 5; i++) await segs[i % segs.length]!.segmentRaw(frame(i));
    let done = 0;
    let next = 0;
    const end = now() + c.seconds * 1000;
    const t0 = now();
    // Up to `inFlight` frames in the pipeline at once, spread over the workers.
    const lane = async (seg: Segmenter) => {
      while (now() < end) await seg.segmentRaw(frame(next++)).then(() => done++);
    };
    await Promise.all(Array.from({ length: c.inFlight }, (_, i) => lane(segs[i % segs.length]!)));
    const fps = (done * 1000) / (now() - t0);
    for (const s of segs) await s.dispose();
    return { fps, frames: done };
  },

  /** Page and worker memory after 10 and after `runs` calls. */
  async memory(c: Config) {
    const seg = await segmenterFor(c.model, c.threads);
    const image = await bytes(c.image);
    const measure = async () =>
      (await (performance as unknown as { measureUserAgentSpecificMemory(): Promise<{ bytes: number }> }).measureUserAgentSpecificMemory())
        .bytes;
    for (let i = 0; i < 10; i++) await seg.segmentRaw(image.slice());
    const after10 = await measure();
    for (let i = 10; i < c.runs; i++) await seg.segmentRaw(image.slice());
    const afterN = await measure();
    return { after10, afterN };
  },

  async dispose() {
    for (const s of segmenters.values()) await s.dispose();
    segmenters.clear();
    for (const r of liteRtRunners.values()) await (await r).release();
    liteRtRunners.clear();
  },
};

(window as unknown as { bench: typeof api }).bench = api;
(window as unknown as { benchReady: boolean }).benchReady = true;

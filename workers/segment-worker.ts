// The segmentation worker: loads a model package, runs it with onnxruntime-web (WebGPU or WASM), and
// returns the hosted route's payload or raw class ids. Exposed with comlink; see src/runtime/protocol.ts.
import { expose, transfer } from 'comlink';
import { BackendError, isEdgesegError } from '../src/errors/index.js';
import {
  cacheStoragePackageCache,
  cutTrailingResize,
  onnxModel,
  type OnnxModel,
  fetchFile,
  fetchPackageFiles,
  type DownloadProgress,
  type ModelSpec,
  type PackageFiles,
  type TrailingResizeCut,
} from '../src/model/index.js';
import { loadModel, type LoadedModel } from '../src/model/load-model.js';
import type { SessionRunner } from '../src/ort/ort-session.js';
import { sessionRunner } from '../src/ort/ort-session.js';
import { buildPayload } from '../src/payload/index.js';
import { isYCbCr, segmentPixels, type PrepareInput, type ResizeMode, type RunModel } from '../src/pipeline/index.js';
import { installErrorTransfer, serializeError } from '../src/runtime/error-transfer.js';
import { webgpuAdapter } from '../src/runtime/webgpu-adapter.js';
import { decodeInWorker, encodePng } from '../src/decode/decode-in-worker.js';
import { crashArmed, faultArmed, injectFault, playLoadFault, playRunFault, slowed } from './faults.js';
import { rebundled } from './ort-from-url.js';
import { importOrt } from './ort-import.js';
import { videoHost } from './video-host.js';
import { wasmRuntime } from './wasm-runtime.js';
import { createWebgpuRunner } from './webgpu-runner.js';
import type {
  LoadRequest,
  OrtFiles,
  LoadResult,
  LocalBackendName,
  SegmentOutcome,
  SegmentRequest,
  WorkerApi,
  WorkerModelSource,
} from '../src/runtime/protocol.js';

installErrorTransfer();
performance.mark('edgeseg:worker-started');

let loaded: LoadedModel<SessionRunner> | null = null;
let files: { key: string; files: PackageFiles } | null = null;
// Reused between calls: the network input buffer.
let inputBuffer: Float32Array | undefined;
/** The loaded model for live video: its spec, and its run through the injected faults too, as segment()'s runs are. */
function model(): [ModelSpec, RunModel] {
  if (!loaded) throw new BackendError('BACKEND_UNAVAILABLE', 'no model is loaded in this worker');
  const current = loaded;
  return [current.spec, (input, signal) => playRunFault(current.runner.name) ?? slowed(() => current.runner.run(input, signal))];
}

// The live-video half of the API (createVideoEffect's frame loop), on the loaded model.
const video = videoHost(model);

async function packageFiles(source: WorkerModelSource, cache: boolean, onProgress?: (p: DownloadProgress) => void): Promise<PackageFiles> {
  if (source.kind === 'files') return source.files;
  // The same source loaded again (another backend after a fallback) reuses what was downloaded.
  const key = JSON.stringify(source);
  if (files?.key === key) return files.files;
  const options = { cache: cache ? cacheStoragePackageCache() : null, ...(onProgress ? { onProgress } : {}) };
  let result: PackageFiles;
  if (source.kind === 'url') result = await fetchPackageFiles(source.baseUrl, options);
  else {
    result = { ...source.files };
    for (const [name, url] of Object.entries(source.urls)) result[name] = (await fetchFile(url, name, true, options))!;
  }
  files = { key, files: result };
  return result;
}

async function createRunner(
  backend: LocalBackendName,
  model: OnnxModel,
  numThreads: number,
  preprocess: { resize: { mode: ResizeMode } },
  ort: OrtFiles | undefined,
  adapter: Promise<GPUAdapter> | undefined,
): Promise<{ runner: SessionRunner; adapter?: string }> {
  // WebGPU keeps the full graph: its logits stay on the GPU, where the Resize costs little.
  if (backend === 'webgpu') return createWebgpuRunner(model.bytes(), numThreads, ort, await adapter);
  const options = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' } as const;
  // A trailing bilinear Resize to the input size is left to postprocessing, which computes the
  // upsampled values only where it needs them (see src/model/onnx-trailing-resize.ts). Not with a
  // centre crop, whose negative padding pads the full-size logits (postprocessing would have to
  // materialise them anyway). Cut before waiting for the runtime, which is often still starting.
  const cut = preprocess.resize.mode === 'center-crop' ? null : cutTrailingResize(model.proto);
  const runtime = await wasmRuntime(numThreads, ort);
  if (!cut) return { runner: await sessionRunner('wasm', runtime, model.bytes(), options) };
  const runner = await sessionRunner('wasm', runtime, onnxModel(cut.model).bytes(), options);
  return { runner: withTrailingResize(runner, cut) };
}

/** The cut model's runner, seen as the full model: its logits carry the Resize they skipped. */
function withTrailingResize(runner: SessionRunner, cut: TrailingResizeCut): SessionRunner {
  return {
    name: runner.name,
    io: { input: runner.io.input, output: cut.outputDims },
    async run(input, signal) {
      const logits = await runner.run(input, signal);
      if ('classIds' in logits) return logits;
      return { ...logits, upsample: { height: cut.outputDims[2], width: cut.outputDims[3], mode: 'onnx-linear-half-pixel' } };
    },
    dispose: () => runner.dispose(),
  };
}

const api: WorkerApi = {
  async holdLifeline(name: string) {
    // Web Locks exist only in secure contexts.
    const locks: LockManager | undefined = self.navigator?.locks;
    if (!locks) return false;
    // Granted at once (the name is new); the callback's promise never settles, so the lock is released
    // only when this worker ends, however it ends.
    await new Promise<void>((granted) => {
      void locks.request(name, () => {
        granted();
        return new Promise<never>(() => undefined);
      });
    });
    return true;
  },

  async load(request: LoadRequest, onProgress) {
    // User Timing marks (edgeseg:…) say where a start spends its time, in the worker's performance timeline.
    performance.mark('edgeseg:load');
    playLoadFault();
    // The page found an adapter before it started this worker for WebGPU (src/runtime/webgpu-adapter.ts): the
    // worker's own request runs beside the downloads, and its answer is awaited where the session starts.
    const gpuAdapter = request.backend === 'webgpu' ? webgpuAdapter() : undefined;
    gpuAdapter?.catch(() => undefined);
    // The runtime's wasm compiles while the package arrives (WebGPU's: its module loads, and a
    // compressed binary downloads and inflates; onnxruntime-web compiles it once the GPU device is set).
    if (request.backend === 'wasm') void wasmRuntime(request.numThreads, request.ort).catch(() => undefined);
    else if (request.ort) void importOrt(request.backend, request.ort).catch(() => undefined);
    const pkg = await packageFiles(request.model, request.cache, onProgress);
    performance.mark('edgeseg:model-read');
    let adapter: string | undefined;
    const next = await loadModel(
      pkg,
      async (onnx, spec) => {
        const created = await createRunner(request.backend, onnx, request.numThreads, spec.preprocess, request.ort, gpuAdapter);
        adapter = created.adapter;
        return created.runner;
      },
      request.inputSize ? { inputSize: request.inputSize } : {},
    );
    performance.mark('edgeseg:session-created');
    if (loaded) await loaded.runner.dispose();
    loaded = next;
    inputBuffer = undefined;
    const result: LoadResult = {
      spec: next.spec,
      warnings: next.warnings,
      backend: request.backend,
      numThreads: request.numThreads,
      ...(adapter ? { adapter } : {}),
      ...(request.backend === 'wasm' && rebundled(await wasmRuntime(request.numThreads, request.ort)) ? { rebundled: true as const } : {}),
    };
    return result;
  },

  async segment(request: SegmentRequest): Promise<SegmentOutcome> {
    let encoded: Uint8Array | undefined;
    let pixelsForRetry: Parameters<typeof encodePng>[0] | undefined;
    try {
      if (!loaded) throw new BackendError('BACKEND_UNAVAILABLE', 'no model is loaded in this worker');
      const current = loaded;
      const t0 = performance.now();
      const decoded = await decodeInWorker(request.image, request.maxPixels);
      encoded = decoded.encoded;
      if (!isYCbCr(decoded.pixels)) pixelsForRetry = decoded.pixels;
      const decode = performance.now() - t0;
      const area = 3 * current.model.preprocess.resize.width * current.model.preprocess.resize.height;
      if (!inputBuffer || inputBuffer.length !== area) inputBuffer = new Float32Array(area);
      const run: RunModel = async (input, signal) => {
        return playRunFault(current.runner.name) ?? slowed(() => current.runner.run(input, signal));
      };
      // The backend's own preprocessing (WebGPU), except when a fault is injected (it goes through `run`).
      const own = current.runner.prepare;
      const prepare: PrepareInput | undefined = own && ((image, spec) => (faultArmed() ? Promise.resolve(null) : own(image, spec)));
      const result = await segmentPixels(decoded.pixels, current.model, run, {
        confidence: request.confidence,
        input: inputBuffer,
        prepare,
        alpha: request.output === 'raw' && request.alpha === true,
      });
      const raw = {
        classIds: result.classIds,
        width: result.width,
        height: result.height,
        class_map: current.classMap,
        ...(result.alpha ? { alpha: result.alpha } : {}),
      };
      const t1 = performance.now();
      const timings = { decode, ...result.timings, encode: 0 };
      if (request.output === 'raw') {
        return transfer({ ok: true, raw, timings }, [raw.classIds.buffer, ...(result.alpha ? [result.alpha.buffer] : [])]);
      }
      const payload = buildPayload(raw);
      timings.encode = performance.now() - t1;
      return { ok: true, payload, timings };
    } catch (thrown) {
      // An unexpected failure inside the runtime is the backend's failure, not the caller's.
      const error = isEdgesegError(thrown)
        ? thrown
        : new BackendError('BACKEND_FAILED', (thrown as Error)?.message ?? String(thrown), { cause: thrown });
      const failed: SegmentOutcome = { ok: false, error: serializeError(error) };
      if (error.name === 'BackendError' && request.wantRetry) {
        // The next backend needs the image again: hand back the encoded bytes (or a lossless PNG).
        const retry = encoded ?? (pixelsForRetry ? await encodePng(pixelsForRetry) : undefined);
        if (retry) return transfer({ ...failed, retry }, [retry.buffer]);
      }
      return failed;
    }
  },

  async ping() {
    if (crashArmed()) {
      // As a worker killed by the browser would: no answer, ever.
      self.close();
      return new Promise<'pong'>(() => undefined);
    }
    return 'pong';
  },

  injectFault,

  ...video.api,

  async dispose() {
    await video.dispose();
    if (loaded) await loaded.runner.dispose();
    loaded = null;
    files = null;
  },
};

// One instance of this module serves the worker. WebKit evaluates it a second time, in the same worker,
// when onnxruntime-web imports its own code by URL during a load (in a bundled app that code is this
// script): a second `expose` would answer every later call twice, first from the instance with no model.
const scope = self as { edgesegWorkerApi?: WorkerApi };
if (!scope.edgesegWorkerApi) {
  scope.edgesegWorkerApi = api;
  expose(api);
}

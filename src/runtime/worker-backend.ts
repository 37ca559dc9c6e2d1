// The `webgpu` and `wasm` backends: a Web Worker running onnxruntime-web, reached with comlink. The
// worker is checked before each call and replaced (with the model reloaded) when it has died.
import { proxy, releaseProxy, transfer, wrap, type Remote } from 'comlink';
import { BackendError, EdgesegAbortError } from '../errors/index.js';
import type { DownloadProgress, ModelSpec } from '../model/index.js';
import type { RawSegmentation, SegmentationPayload } from '../payload/index.js';
import type { LoadRequest, LoadResult, LocalBackendName, SegmentOutcome, WorkerApi } from '../../workers/protocol.js';
import type { Backend, BackendCallOptions, BackendOutcome } from './backend.js';
import { deserializeError, installErrorTransfer } from './error-transfer.js';
import { toWorkerImage, type ImageSource } from './image-source.js';

/** How long an idle worker may take to answer a ping before it is taken for dead. */
const PING_TIMEOUT_MS = 2000;

export interface WorkerBackendOptions {
  load: Omit<LoadRequest, 'backend'>;
  maxPixels: number;
  createWorker: () => Worker;
  onProgress?: (progress: DownloadProgress) => void;
  /** Told when a dead worker was replaced. */
  onRestart?: (reason: string) => void;
}

export class WorkerBackend implements Backend {
  readonly name: LocalBackendName;
  #options: WorkerBackendOptions;
  #worker: Worker | null = null;
  #remote: Remote<WorkerApi> | null = null;
  #dead: string | null = null;
  #loaded: LoadResult | null = null;

  private constructor(name: LocalBackendName, options: WorkerBackendOptions) {
    this.name = name;
    this.#options = options;
  }

  /** Starts a worker and loads the model on `backend`; rejects (with the worker stopped) if it cannot. */
  static async start(backend: LocalBackendName, options: WorkerBackendOptions): Promise<WorkerBackend> {
    installErrorTransfer();
    const b = new WorkerBackend(backend, options);
    try {
      await b.#boot();
    } catch (error) {
      await b.dispose();
      throw error;
    }
    return b;
  }

  get spec(): ModelSpec {
    return this.#loaded!.spec;
  }

  get loadResult(): LoadResult {
    return this.#loaded!;
  }

  segment(source: ImageSource, options: BackendCallOptions): Promise<BackendOutcome<SegmentationPayload>> {
    return this.#call(source, options, 'payload') as Promise<BackendOutcome<SegmentationPayload>>;
  }

  segmentRaw(source: ImageSource, options: BackendCallOptions): Promise<BackendOutcome<RawSegmentation>> {
    return this.#call(source, options, 'raw') as Promise<BackendOutcome<RawSegmentation>>;
  }

  /** Test hook: make the worker fail its next run, or die before the next call. */
  async injectFault(fault: 'run' | 'crash'): Promise<void> {
    await this.#remote?.injectFault(fault);
  }

  async dispose(): Promise<void> {
    const remote = this.#remote;
    this.#remote = null;
    if (remote && !this.#dead) await Promise.race([remote.dispose().catch(() => undefined), delay(500)]);
    remote?.[releaseProxy]();
    this.#worker?.terminate();
    this.#worker = null;
  }

  async #boot(): Promise<void> {
    const worker = this.#options.createWorker();
    this.#worker = worker;
    this.#dead = null;
    worker.addEventListener('error', (event) => {
      event.preventDefault?.();
      this.#dead = `the worker crashed: ${event.message || 'unknown error'}`;
    });
    this.#remote = wrap<WorkerApi>(worker);
    const onProgress = this.#options.onProgress ? proxy(this.#options.onProgress) : undefined;
    this.#loaded = await this.#remote.load({ ...this.#options.load, backend: this.name }, onProgress);
  }

  async #ensureAlive(): Promise<void> {
    if (!this.#dead) {
      const answer = await Promise.race([this.#remote!.ping().catch(() => 'failed' as const), delay(PING_TIMEOUT_MS).then(() => 'timeout' as const)]);
      if (answer !== 'pong') this.#dead = answer === 'timeout' ? 'the worker stopped answering' : 'the worker is gone';
    }
    if (this.#dead) {
      const reason = this.#dead;
      this.#remote?.[releaseProxy]();
      this.#worker?.terminate();
      await this.#boot();
      this.#options.onRestart?.(reason);
    }
  }

  async #call(source: ImageSource, options: BackendCallOptions, output: 'payload' | 'raw'): Promise<BackendOutcome<SegmentationPayload | RawSegmentation>> {
    const t0 = performance.now();
    try {
      await this.#ensureAlive();
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error : new BackendError('WORKER_CRASHED', String(error), { backend: this.name }) };
    }
    if (options.signal?.aborted) throw new EdgesegAbortError(undefined, { cause: options.signal.reason });
    const { image, transfer: transferables } = await toWorkerImage(source);
    // Blobs and URLs stay usable here for a retry; transferred data comes back from the worker if needed.
    const keep = image.kind === 'blob' || image.kind === 'url' ? source : undefined;
    let outcome: SegmentOutcome;
    try {
      outcome = await this.#remote!.segment(
        transfer({ image, confidence: options.confidence, output, maxPixels: this.#options.maxPixels, wantRetry: options.wantRetry && keep === undefined }, transferables),
      );
    } catch (error) {
      this.#dead = `the worker failed: ${(error as Error).message}`;
      return { ok: false, error: new BackendError('WORKER_CRASHED', this.#dead, { backend: this.name, cause: error }) };
    }
    if (!outcome.ok) {
      const error = deserializeError(outcome.error);
      const retry = outcome.retry ?? keep;
      return retry === undefined ? { ok: false, error } : { ok: false, error, retry };
    }
    const value = output === 'raw' ? outcome.raw! : outcome.payload!;
    return { ok: true, value, timings: { ...outcome.timings, total: performance.now() - t0 } };
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

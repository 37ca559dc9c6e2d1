// The `webgpu` and `wasm` backends: a Web Worker running onnxruntime-web, reached with comlink. The
// worker is checked before each call and replaced (with the model reloaded) when it has died; a call
// that is waiting on a worker when it dies, or is stopped, settles at once (see worker-life.ts).
import { proxy, releaseProxy, transfer, wrap, type Remote } from 'comlink';
import { BackendError, EdgesegAbortError, InvalidInputError } from '../errors/index.js';
import type { DownloadProgress, ModelSpec } from '../model/index.js';
import type { RawSegmentation, SegmentationPayload } from '../payload/index.js';
import type { LoadRequest, LoadResult, LocalBackendName, SegmentOutcome, WorkerApi } from './protocol.js';
import type { Backend, BackendCallOptions, BackendOutcome } from './backend.js';
import { deserializeError, installErrorTransfer } from './error-transfer.js';
import { takeBlockingFault } from './faults.js';
import { reusable, toWorkerImage, type ImageSource } from './image-source.js';
import { STALL_MS, watchWorker, type WorkerLife } from './worker-life.js';

/** How long an idle worker may take to answer a ping before it is taken for dead. */
export const PING_TIMEOUT_MS = 2000;
/**
 * How many workers one start may create when their script does not run: WebKit refuses a worker
 * script that it revalidated from its cache when the server's 304 lacks the COEP header (Vite's dev and
 * preview servers send such 304s), and then fetches it afresh for the next worker.
 */
const SCRIPT_ATTEMPTS = 3;
/**
 * How long a started worker may take to answer its first ping. edgeseg's worker answers as soon as its
 * script has run (well under a second); a script that runs but never answers is some other file.
 */
export const HELLO_TIMEOUT_MS = 20_000;

export interface WorkerBackendOptions {
  load: Omit<LoadRequest, 'backend'>;
  maxPixels: number;
  createWorker: () => Worker;
  onProgress?: (progress: DownloadProgress) => void;
  /** Told when a dead worker was replaced. */
  onRestart?: (reason: string) => void;
  /** The error for a worker script that runs but never answers (it is not edgeseg's worker). */
  silentScript?: () => Error;
}

/** @internal A worker as live video calls it: its remote, its end, and calls raced against that end. */
export interface WorkerHandle {
  remote: Remote<WorkerApi>;
  /** Rejects (WORKER_CRASHED, or DISPOSED) when the worker ends. */
  died: Promise<never>;
  /** A call to it, or a rejection as soon as it ends (nothing is left waiting on it once the call settles). */
  guard<T>(promise: Promise<T>): Promise<T>;
}

/** @internal A worker beside the model's (see `WorkerBackend.companion`). */
export interface CompanionWorker extends WorkerHandle {
  terminate(): void;
}

interface StartedWorker {
  worker: Worker;
  remote: Remote<WorkerApi>;
  life: WorkerLife;
}

function handleOf(remote: Remote<WorkerApi>, life: WorkerLife): WorkerHandle {
  const died = life.guard(new Promise<never>(() => undefined));
  died.catch(() => undefined);
  return { remote, died, guard: (promise) => life.guard(promise) };
}

export class WorkerBackend implements Backend {
  readonly name: LocalBackendName;
  #options: WorkerBackendOptions;
  #worker: Worker | null = null;
  #remote: Remote<WorkerApi> | null = null;
  #life: WorkerLife | null = null;
  /** Why the worker is taken for dead when it stopped answering a ping (its life watch saw nothing). */
  #unresponsive: string | null = null;
  #loaded: LoadResult | null = null;
  #inFlight = 0;
  #disposed = false;

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

  /** @internal The worker itself, for live video's frame loop (src/video), which it runs beside the model. */
  get remote(): Remote<WorkerApi> | null {
    return this.#remote;
  }

  segment(source: ImageSource, options: BackendCallOptions): Promise<BackendOutcome<SegmentationPayload>> {
    return this.#call(source, options, 'payload') as Promise<BackendOutcome<SegmentationPayload>>;
  }

  segmentRaw(source: ImageSource, options: BackendCallOptions): Promise<BackendOutcome<RawSegmentation>> {
    return this.#call(source, options, 'raw') as Promise<BackendOutcome<RawSegmentation>>;
  }

  /**
   * @internal Another worker of the same script, with no model, once it answers (started again as the
   * model's worker is, where its script did not run): live video's frame loop runs there while this one
   * runs the model. Its `died` rejects when it ends; `terminate()` stops it.
   */
  async companion(): Promise<CompanionWorker> {
    let last: StartedWorker | undefined;
    const { worker, remote, life } = await this.#answering((started) => (last = started)).catch((error: unknown) => {
      last?.life.end(new BackendError('WORKER_CRASHED', `the ${this.name} loop worker did not start`, { backend: this.name }));
      last?.remote[releaseProxy]();
      last?.worker.terminate();
      throw error;
    });
    return {
      ...handleOf(remote, life),
      terminate: () => {
        life.end(this.#disposedError());
        remote[releaseProxy]();
        worker.terminate();
      },
    };
  }

  /** @internal This worker as it is now, for live video; null once it is stopped. */
  handle(): WorkerHandle | null {
    return this.#remote && this.#life ? handleOf(this.#remote, this.#life) : null;
  }

  /** @internal A dead worker replaced by a fresh one with the model loaded (as the next call would); nothing when it answers. */
  revive(): Promise<void> {
    return this.#ensureAlive();
  }

  async dispose(): Promise<void> {
    const remote = this.#remote;
    const life = this.#life;
    this.#disposed = true;
    this.#remote = null;
    this.#life = null;
    // A run in flight is not waited for (it may never end): the worker is stopped under it.
    const graceful = remote && life && !life.ended() && !this.#unresponsive && this.#inFlight === 0;
    // First settle what waits on the worker.
    life?.end(this.#disposedError());
    if (graceful) await Promise.race([remote.dispose().catch(() => undefined), delay(500)]);
    remote?.[releaseProxy]();
    this.#worker?.terminate();
    this.#worker = null;
  }

  /**
   * A new worker with the model loaded: no call reaches a worker before its load has answered. One that
   * gets stuck while loading is stopped, and a fresh one gets one more try.
   */
  async #boot(): Promise<void> {
    this.#loaded = null;
    for (let attempt = 1; ; attempt++) {
      const { remote, life } = await this.#answering(({ worker, remote, life }) => {
        // Each try's worker is this backend's at once, so that a dispose meanwhile stops it.
        [this.#worker, this.#remote, this.#life, this.#unresponsive] = [worker, remote, life, null];
      });
      const blocked = takeBlockingFault(this, 'load');
      if (blocked) await remote.injectFault('block-in-load');
      const onProgress = this.#options.onProgress ? proxy(this.#options.onProgress) : undefined;
      try {
        // A worker that dies while loading fails the start instead of hanging it.
        this.#loaded = await life.working(remote.load({ ...this.#options.load, backend: this.name }, onProgress), stallLimit(blocked));
        return;
      } catch (error) {
        if (attempt >= 2 || !life.stalled() || this.#disposed) throw error;
        remote[releaseProxy]();
      }
    }
  }

  /**
   * A new worker of this script that has answered a ping. One whose script did not run is started again,
   * up to SCRIPT_ATTEMPTS workers in all; one that runs but never answers is not edgeseg's worker.
   */
  async #answering(onTry?: (started: StartedWorker) => void): Promise<StartedWorker> {
    for (let attempt = 1; ; attempt++) {
      if (this.#disposed) throw this.#disposedError();
      const worker = this.#options.createWorker();
      const remote = wrap<WorkerApi>(worker);
      const started = { worker, remote, life: watchWorker(worker, remote, this.name) };
      onTry?.(started);
      try {
        if (await answersWithin(started.life, remote, HELLO_TIMEOUT_MS)) return started;
        throw (
          this.#options.silentScript?.() ??
          new BackendError('WORKER_CRASHED', `the ${this.name} worker's script runs but never answered`, { backend: this.name })
        );
      } catch (error) {
        // The last try's worker is left to the caller (onTry), which stops it.
        if (!started.life.neverRan() || attempt >= SCRIPT_ATTEMPTS) throw error;
        remote[releaseProxy]();
        worker.terminate();
      }
    }
  }

  /** Why the current worker is dead, or null when it answers. */
  async #deathOf(life: WorkerLife, remote: Remote<WorkerApi>): Promise<string | null> {
    const ended = life.ended();
    if (ended) return ended.message;
    if (this.#unresponsive) return this.#unresponsive;
    const answer = await Promise.race([
      life.guard(remote.ping()).catch(() => 'failed' as const),
      delay(PING_TIMEOUT_MS).then(() => 'timeout' as const),
    ]);
    if (answer === 'pong') return null;
    return life.ended()?.message ?? (answer === 'timeout' ? 'the worker stopped answering' : 'the worker is gone');
  }

  async #ensureAlive(): Promise<void> {
    const reason = await this.#deathOf(this.#life!, this.#remote!);
    if (this.#disposed) throw this.#disposedError();
    if (reason === null) return;
    this.#life?.end(new BackendError('WORKER_CRASHED', reason, { backend: this.name }));
    this.#remote?.[releaseProxy]();
    this.#worker?.terminate();
    await this.#boot();
    this.#options.onRestart?.(reason);
  }

  #disposedError(): BackendError {
    return new BackendError('DISPOSED', 'this segmenter was disposed', { backend: this.name });
  }

  async #call(
    source: ImageSource,
    options: BackendCallOptions,
    output: 'payload' | 'raw',
  ): Promise<BackendOutcome<SegmentationPayload | RawSegmentation>> {
    this.#inFlight++;
    try {
      const outcome = await this.#callOnce(source, options, output);
      // A worker that got stuck under the call is not the image's doing: a fresh one runs it again where the image is still at hand.
      if (!outcome.ok && outcome.stalled && reusable(source)) return await this.#callOnce(source, options, output);
      return outcome;
    } finally {
      this.#inFlight--;
    }
  }

  async #callOnce(
    source: ImageSource,
    options: BackendCallOptions,
    output: 'payload' | 'raw',
  ): Promise<BackendOutcome<SegmentationPayload | RawSegmentation> & { stalled?: true }> {
    const t0 = performance.now();
    if (this.#disposed) return { ok: false, error: this.#disposedError() };
    try {
      await this.#ensureAlive();
    } catch (error) {
      return {
        ok: false,
        error: error instanceof Error ? error : new BackendError('WORKER_CRASHED', String(error), { backend: this.name }),
      };
    }
    if (options.signal?.aborted) throw new EdgesegAbortError(undefined, { cause: options.signal.reason });
    const { image, transfer: transferables } = await toWorkerImage(source);
    // Disposed while the image was prepared.
    const life = this.#life;
    const remote = this.#remote;
    if (!life || !remote) return { ok: false, error: this.#disposedError() };
    // Blobs and URLs stay usable here for a retry; transferred data comes back from the worker if needed.
    const keep = image.kind === 'blob' || image.kind === 'url' ? source : undefined;
    let outcome: SegmentOutcome;
    try {
      outcome = await life.working<SegmentOutcome>(
        remote.segment(
          transfer(
            {
              image,
              confidence: options.confidence,
              output,
              maxPixels: this.#options.maxPixels,
              wantRetry: options.wantRetry && keep === undefined,
              ...(options.alpha ? { alpha: true } : {}),
            },
            transferables,
          ),
        ),
        stallLimit(takeBlockingFault(this, 'run')),
      );
    } catch (error) {
      // The worker died (or was stopped) during the call. The image went with it, and an image that killed
      // one worker may kill the next: this call rejects, and the next call gets a fresh worker.
      const ended = life.ended();
      if (ended) return life.stalled() ? { ok: false, error: ended, stalled: true } : { ok: false, error: ended };
      // postMessage refused the image (a detached buffer, a closed bitmap): nothing reached the worker.
      if ((error as { name?: string })?.name === 'DataCloneError') {
        return {
          ok: false,
          error: new InvalidInputError('IMAGE_SOURCE_INVALID', `the image cannot be sent to the worker: ${(error as Error).message}`, {
            cause: error,
          }),
        };
      }
      this.#unresponsive = `the worker failed: ${(error as Error).message}`;
      return { ok: false, error: new BackendError('WORKER_CRASHED', this.#unresponsive, { backend: this.name, cause: error }) };
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

/** How long the watch waits on a worker's silence: 2 s for work a test fault blocks, STALL_MS otherwise. */
function stallLimit(blockedByTest: boolean): number {
  return blockedByTest ? 2000 : STALL_MS;
}

/** Whether the worker answers a ping within `ms`; rejects when it dies first (its script did not run, say). */
async function answersWithin(life: WorkerLife, remote: Remote<WorkerApi>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      life.guard(remote.ping()).then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

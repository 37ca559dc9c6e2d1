// The loop of a video effect, on the page: its path (how frames come), its workers (the model's, the
// segmenter's, and the frame loop's own beside it) and its state (LoopState). Every event of the loop, from
// its worker, its path or a recovery, goes through #tell, where nextLoop (loop-state.ts) decides what it
// does: recover (a model that fails mid-call moves to the next backend, a dead model worker is replaced on
// the same backend), start the loop again (a dead loop worker is replaced, or the loop moves into the
// model's worker where one never started), or end the output.
import { proxy, transfer } from 'comlink';
import { deserializeError } from '../runtime/error-transfer.js';
import type { Fallback, Segmenter } from '../runtime/segmenter.js';
import { segmenterInternals, type VideoWorker } from '../runtime/segmenter-internals.js';
import type { CompanionWorker } from '../runtime/worker-backend.js';
import type { FrameLoop, InputPath, PageEvent, PathLoop } from './input-path.js';
import { nextLoop, type LoopAction, type LoopEvent, type LoopState } from './loop-state.js';
import type { FrameReport, VideoInput, VideoSettings, VideoStartRequest } from './protocol.js';

/** What the supervisor needs of the effect it serves. */
export interface SupervisorHost {
  /** The settings as the worker takes them. */
  settings(): VideoSettings;
  /** A frame's report from the current loop. */
  report(report: FrameReport): void;
  /** The loop stopped on `error`, and the output has ended: the app is told. */
  failed(error: Error): void;
}

/** The model's worker, from the segmenter (null where the hosted route runs the model). */
export const modelWorkerOf = (segmenter: Segmenter): VideoWorker | null => segmenterInternals(segmenter).videoWorker();

export class LoopSupervisor implements PathLoop {
  readonly #segmenter: Segmenter;
  readonly #host: SupervisorHost;
  #worker: VideoWorker;
  #state: LoopState = { is: 'closed', generation: 0 };
  /** The input's way through the effect (the last one, once it ended). */
  #path: InputPath | null = null;
  /** Whether the effect closed: no loop and no worker starts from then on. */
  #disposed = false;
  /** The frame loop's worker (started with the first track, or with the effect where it makes the output), beside the model's. */
  #loop: CompanionWorker | null = null;
  /** The loop's worker while it starts (null: none started, or the last one died). */
  #loopStart: Promise<CompanionWorker | null> | null = null;
  /** Whether the frame loop may have a worker of its own (off once one failed to start). */
  #companions = true;
  /**
   * The track path: a track generator made ahead in the loop's worker (`owner`), whose track the next
   * process() returns; null where that worker has none.
   */
  #spare: { id: number; track: MediaStreamTrack; owner: CompanionWorker } | null = null;
  readonly #fallbacks: Fallback[] = [];
  #restarts = 0;
  /** The compositor the last loop started with. */
  compositor: 'webgl2' | 'canvas2d' | null = null;

  constructor(segmenter: Segmenter, worker: VideoWorker, host: SupervisorHost) {
    this.#segmenter = segmenter;
    this.#worker = worker;
    this.#host = host;
  }

  get generation(): number {
    return this.#state.generation;
  }

  /** The current input's path (the last one, once it ended; null before the first process()). */
  get path(): InputPath | null {
    return this.#path;
  }

  /** The loop's own worker, where it has one now. */
  get loop(): CompanionWorker | null {
    return this.#loop;
  }

  /** The backends left while the effect ran, in order. */
  get fallbacks(): readonly Fallback[] {
    return this.#fallbacks;
  }

  /** How many times a worker (the model's or the loop's) died and was replaced. */
  get restarts(): number {
    return this.#restarts;
  }

  /** The worker that runs the frame loop: the companion, or the model's. */
  loopRemote(): VideoWorker['remote'] {
    return this.#loop?.remote ?? this.#worker.remote;
  }

  /** Runs the effect on `path` (the one before it has ended): its first loop starts. */
  run(path: InputPath): void {
    this.#path = path;
    this.#begin();
  }

  frameLoop(): FrameLoop {
    const state = this.#state;
    const [model, loop, remote] = [this.#worker, this.#loop, this.loopRemote()];
    return {
      generation: state.generation,
      started: state.is === 'running' || (state.is === 'recovering' && state.loop === 'running'),
      accepting: state.is === 'running',
      call: (use) => model.guard(loop ? loop.guard(use(remote)) : use(remote)),
      loopDied: () => loop !== null && this.#loop !== loop,
    };
  }

  /** A frame the model failed on moves the model (see nextLoop). */
  report(generation: number, report: FrameReport): void {
    if (generation !== this.#state.generation) return;
    if (report.failure) void this.#tell({ on: 'frame-failed', generation, error: deserializeError(report.failure) });
    this.#host.report(report);
  }

  tell(event: PageEvent): void {
    void this.#tell(event);
  }

  /**
   * The one place the loop moves: nextLoop decides `event`, and its action is taken here. Resolves once the
   * action has (a restart: the new loop begun; a recovery runs on).
   */
  async #tell(event: LoopEvent): Promise<LoopAction> {
    const path = this.#path;
    const facts = { inputLive: path?.track.readyState === 'live', outputInLoopWorker: path?.outputInLoopWorker ?? false };
    const { state, act } = nextLoop(this.#state, event, facts);
    this.#state = state;
    if (act.do === 'recover') void this.#recover(act.failure, act.error);
    else if (act.do === 'end') {
      void path?.stop();
      if (act.error) this.#host.failed(act.error);
    } else if (act.do === 'restart') {
      await path?.detach?.();
      if (this.#state.is !== 'closed') this.#begin();
    }
    return act;
  }

  /** Starts a loop on the path's input (a new one: the one before it is replaced). */
  #begin(): void {
    const path = this.#path!;
    void this.#tell({ on: 'start' });
    const { generation } = this.#state;
    const model = this.#worker;
    model.died.catch((error: Error) => void this.#tell({ on: 'model-died', generation, error }));
    const { input, transfer: transferables } = path.connect();
    void this.#start(generation, model, input, transferables);
  }

  /**
   * Starts loop `generation` on `input`: in the loop's own worker, with the model served to it from the
   * model's worker, or in the model's worker where the loop has none.
   */
  async #start(generation: number, model: VideoWorker, input: VideoInput, transferables: Transferable[]): Promise<void> {
    const loop = await this.companion();
    let [started, loopDied] = [false, false];
    loop?.died.catch(() => {
      loopDied = true;
      void this.#loopDied(generation, loop, started);
    });
    const start = async () => {
      const settings = this.#host.settings();
      if (!loop) return model.remote.videoStart(transfer({ input, settings }, transferables), this.#events(generation));
      const channel = new MessageChannel();
      await model.guard(model.remote.videoServeModel(transfer(channel.port1, [channel.port1])));
      const request: VideoStartRequest = { input, settings, model: { spec: this.#segmenter.spec!, port: channel.port2 } };
      return loop.guard(loop.remote.videoStart(transfer(request, [...transferables, channel.port2]), this.#events(generation)));
    };
    try {
      const result = await start();
      started = true;
      this.compositor = result.compositor;
      await this.#tell({ on: 'started', generation });
      const state = this.#state;
      if (state.generation === generation && state.is !== 'closed') this.#path?.started?.(generation);
    } catch (error) {
      await this.#tell({ on: 'start-failed', generation, error: error as Error, loopDied });
    }
  }

  /** The events of the loop numbered `generation`. */
  #events(generation: number) {
    return proxy({
      frame: (report: FrameReport) => this.report(generation, report),
      ended: (error?: Parameters<typeof deserializeError>[0]) =>
        void this.#tell({ on: 'loop-ended', generation, ...(error ? { error: deserializeError(error) } : {}) }),
    });
  }

  /**
   * Loop `generation`'s own worker died: let go of (and not tried again where it never started a loop: the
   * loop then runs beside the model, in one worker), the path's output freed of that loop, then told.
   */
  async #loopDied(generation: number, loop: CompanionWorker, started: boolean): Promise<void> {
    if (generation !== this.#state.generation || this.#disposed) return;
    [this.#loop, this.#loopStart] = [null, null];
    loop.terminate();
    if (started) this.#restarts++;
    else this.#companions = false;
    await this.#path?.detach?.();
    const act = await this.#tell({ on: 'loop-died', generation });
    // The track path's output ended with that worker: a new loop worker, with a generator made ahead, for the next process().
    if (act.do === 'end') void this.makeSpare();
  }

  /**
   * The model failed mid-call (`failed`: the next backend, as createSegmenter moves a failed call) or its
   * worker died (`crashed`: a fresh worker on the same backend). Meanwhile a failed backend's loop goes on
   * with the last good mask; once the new worker runs, the loop starts again there on the same output.
   */
  async #recover(failure: 'crashed' | 'failed', error: Error): Promise<void> {
    const before = {
      backend: this.#segmenter.backend,
      fallbacks: this.#segmenter.fallbacks.length,
      restarts: this.#segmenter.workerRestarts,
    };
    try {
      const moved = await segmenterInternals(this.#segmenter).recoverVideo(failure, error);
      if (!moved || this.#disposed) return;
      // The input ended meanwhile: said as it is (the output ends).
      if (this.#path?.track.readyState !== 'live') {
        await this.#tell({ on: 'recovered' });
        return;
      }
      this.#fallbacks.push(...this.#segmenter.fallbacks.slice(before.fallbacks).filter((f) => f.backend === before.backend));
      this.#restarts += this.#segmenter.workerRestarts - before.restarts;
      const worker = modelWorkerOf(this.#segmenter);
      if (!worker) return;
      this.#worker = worker;
      await this.#tell({ on: 'recovered' });
    } catch (thrown) {
      // No worker could take over (the model no longer loads): the effect ends with that error.
      await this.#tell({ on: 'recovery-failed', error: thrown as Error });
    } finally {
      await this.#tell({ on: 'recovery-over' });
    }
  }

  /**
   * The frame loop's own worker, started once, when it answers: null where companions are off (one did
   * not start, or died before its loop started), and the loop runs in the model's worker.
   */
  companion(): Promise<CompanionWorker | null> {
    if (!this.#companions || this.#disposed) return Promise.resolve(null);
    this.#loopStart ??= this.#worker.companion().then(
      (loop) => {
        if (this.#disposed) {
          loop.terminate();
          return null;
        }
        this.#loop = loop;
        return loop;
      },
      () => {
        [this.#companions, this.#loopStart] = [false, null];
        return null;
      },
    );
    return this.#loopStart;
  }

  /**
   * Where the page has no track generator, the track path needs one made in the loop's worker before
   * process() is called (it returns the output at once); none where that worker cannot make one either.
   */
  async makeSpare(): Promise<void> {
    if (this.#disposed) return;
    const owner = await this.companion();
    if (!owner) return;
    const made = await owner.guard(owner.remote.videoOutput()).catch(() => null);
    if (made && !this.#disposed && this.#loop === owner) this.#spare = { ...made, owner };
    else made?.track.stop();
  }

  /** The generator made ahead, where the loop's worker that made it still runs (it is then no longer spare). */
  takeSpare(): { id: number; track: MediaStreamTrack } | null {
    const spare = this.#spare;
    this.#spare = null;
    if (spare && spare.owner === this.#loop && spare.track.readyState === 'live') return spare;
    spare?.track.stop();
    return null;
  }

  async stopTrackLoop(): Promise<number | null> {
    const loop = this.#loop;
    if (!loop || this.#disposed) return null;
    return loop.guard(loop.remote.videoStop()).catch(() => null);
  }

  /**
   * The effect closes: the path stopped (its output ended), the loop stopped (the input frames still open
   * then; 0 where its worker died), the loop's worker ended.
   */
  async close(): Promise<number> {
    this.#disposed = true;
    void this.#tell({ on: 'close' });
    const stopping = this.#path?.stop();
    // Not waited for when the worker is dead (comlink would wait for ever).
    const loop = this.#loop;
    const open = await (loop ?? this.#worker).guard(this.loopRemote().videoStop()).catch(() => null);
    this.#loop = null;
    loop?.terminate();
    this.#spare?.track.stop();
    this.#spare = null;
    await stopping;
    // A worker that died holds no frame.
    return open ?? 0;
  }
}

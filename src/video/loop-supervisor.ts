// The workers of a video effect: the model's (the segmenter's) and the frame loop's own, beside it. Starts
// each loop (numbered: events from a loop that was replaced are ignored), and recovers: a model that fails
// mid-call moves to the next backend, a dead model worker is replaced on the same backend, a dead loop
// worker is replaced (or the loop moves into the model's worker where one never started).
import { proxy, transfer } from 'comlink';
import { deserializeError } from '../runtime/error-transfer.js';
import type { Fallback, Segmenter } from '../runtime/segmenter.js';
import { segmenterInternals, type VideoWorker } from '../runtime/segmenter-internals.js';
import type { CompanionWorker } from '../runtime/worker-backend.js';
import type { FrameReport, VideoSettings, VideoStartRequest } from './protocol.js';

/** What the supervisor needs of the effect it serves. */
export interface SupervisorHost {
  closed(): boolean;
  /** The input track of the current path (null before the first process()). */
  track(): MediaStreamTrack | null;
  /** The current path: started again, on the same output, once a new worker runs the model. */
  path(): { restart(): Promise<void> } | null;
  /** The settings as the worker takes them. */
  settings(): VideoSettings;
  report(report: FrameReport): void;
  /** The effect's end (see VideoEffect): `error` where it stopped on one, recovered from first unless `final`. */
  ended(error?: Error, final?: boolean): void;
}

/** The model's worker, from the segmenter (null where the hosted route runs the model). */
export const modelWorkerOf = (segmenter: Segmenter): VideoWorker | null => segmenterInternals(segmenter).videoWorker();

export class LoopSupervisor {
  readonly #segmenter: Segmenter;
  readonly #host: SupervisorHost;
  #worker: VideoWorker;
  /** The frame loop's worker (started with the first track, or with the effect where it makes the output), beside the model's. */
  #loop: CompanionWorker | null = null;
  /** The loop's worker while it starts (null: none started, or the last one died). */
  #loopStart: Promise<CompanionWorker | null> | null = null;
  /** Whether the frame loop may have a worker of its own (off once one failed to start). */
  #companions = true;
  /** Each loop's number: events from a loop that was replaced are ignored. */
  #generation = 0;
  #recovering = false;
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

  /** The model's worker now. */
  get worker(): VideoWorker {
    return this.#worker;
  }

  /** The loop's own worker, where it has one now. */
  get loop(): CompanionWorker | null {
    return this.#loop;
  }

  /** The current loop's number. */
  get generation(): number {
    return this.#generation;
  }

  /** A new loop's number (the one before it is replaced). */
  nextGeneration(): number {
    return ++this.#generation;
  }

  /** Whether a new worker is being started for the model (the loop is replaced once it runs). */
  get recovering(): boolean {
    return this.#recovering;
  }

  /** The input ended: a recovery under way is not waited for. */
  inputEnded(): void {
    this.#recovering = false;
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

  /** The events of the loop numbered `generation`: a replaced loop's are ignored. */
  events(generation: number) {
    return proxy({
      frame: (report: FrameReport) => {
        if (generation === this.#generation) this.#host.report(report);
      },
      ended: (error?: Parameters<typeof deserializeError>[0]) => {
        // A loop stopped while its worker is replaced is not the effect's end.
        if (generation === this.#generation && !this.#recovering) this.#host.ended(error ? deserializeError(error) : undefined);
      },
    });
  }

  /**
   * Starts loop `generation` on `input`: in the loop's own worker, with the model served to it from the
   * model's worker, or in the model's worker where the loop has none. A dead model worker is recovered
   * from; a dead loop worker is replaced (`stop` the old loop, then `restart`).
   */
  async startLoop(
    generation: number,
    input: VideoStartRequest['input'],
    transferables: Transferable[],
    stop: () => Promise<void> | undefined,
    restart: () => void,
  ): Promise<void> {
    const model = this.#worker;
    model.died.catch((error: Error) => {
      if (generation === this.#generation) void this.recover('crashed', error);
    });
    const loop = await this.companion();
    let [started, loopDied] = [false, false];
    loop?.died.catch(() => {
      loopDied = true;
      if (generation !== this.#generation || this.#host.closed()) return;
      // A loop worker that died is replaced (one that never started a loop is not tried again: the loop
      // then runs beside the model, in one worker).
      [this.#loop, this.#loopStart] = [null, null];
      loop.terminate();
      if (started) this.#restarts++;
      else this.#companions = false;
      void Promise.resolve(stop()).then(() => {
        if (generation === this.#generation && !this.#host.closed() && this.#host.track()?.readyState === 'live') restart();
      });
    });
    const start = async () => {
      const settings = this.#host.settings();
      if (!loop) return model.remote.videoStart(transfer({ input, settings }, transferables), this.events(generation));
      const channel = new MessageChannel();
      await model.guard(model.remote.videoServeModel(transfer(channel.port1, [channel.port1])));
      const request: VideoStartRequest = { input, settings, model: { spec: this.#segmenter.spec!, port: channel.port2 } };
      return loop.guard(loop.remote.videoStart(transfer(request, [...transferables, channel.port2]), this.events(generation)));
    };
    return start().then(
      (result) => {
        started = true;
        this.compositor = result.compositor;
      },
      (error: unknown) => {
        // A loop worker that died is replaced above.
        if (generation === this.#generation && !loopDied) this.#host.ended(error as Error);
        throw error;
      },
    );
  }

  /**
   * The frame loop's own worker, started once, when it answers: null where companions are off (one did
   * not start, or died before its loop started), and the loop runs in the model's worker.
   */
  companion(): Promise<CompanionWorker | null> {
    if (!this.#companions || this.#host.closed()) return Promise.resolve(null);
    this.#loopStart ??= this.#worker.companion().then(
      (loop) => {
        if (this.#host.closed()) {
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
    if (this.#host.closed()) return;
    const owner = await this.companion();
    if (!owner) return;
    const made = await owner.guard(owner.remote.videoOutput()).catch(() => null);
    if (made && !this.#host.closed() && this.#loop === owner) this.#spare = { ...made, owner };
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

  /**
   * The model failed mid-call (`failed`: the next backend, as createSegmenter moves a failed call) or its
   * worker died (`crashed`: a fresh worker on the same backend). Meanwhile a failed backend's loop goes on
   * with the last good mask; once the new worker runs, the loop starts there on the same output track.
   */
  async recover(failure: 'crashed' | 'failed', error: Error): Promise<void> {
    const host = this.#host;
    const track = host.track();
    if (this.#recovering || host.closed() || !track || track.readyState === 'ended') return;
    this.#recovering = true;
    const before = {
      backend: this.#segmenter.backend,
      fallbacks: this.#segmenter.fallbacks.length,
      restarts: this.#segmenter.workerRestarts,
    };
    try {
      const moved = await segmenterInternals(this.#segmenter).recoverVideo(failure, error);
      if (!moved || host.closed()) return;
      if ((track.readyState as MediaStreamTrackState) === 'ended') {
        this.#recovering = false;
        host.ended();
        return;
      }
      this.#fallbacks.push(...this.#segmenter.fallbacks.slice(before.fallbacks).filter((f) => f.backend === before.backend));
      this.#restarts += this.#segmenter.workerRestarts - before.restarts;
      const worker = modelWorkerOf(this.#segmenter);
      if (!worker) return;
      this.#worker = worker;
      await host.path()?.restart();
    } catch (thrown) {
      // No worker could take over (the model no longer loads): the effect ends with that error.
      this.#recovering = false;
      if (!host.closed()) host.ended(thrown as Error, true);
    } finally {
      this.#recovering = false;
    }
  }

  /** Stops the loop in the loop's own worker (the track path, whose output that worker holds); the frames it held then, or null. */
  async stopTrackLoop(): Promise<number | null> {
    const loop = this.#loop;
    if (!loop || this.#host.closed()) return null;
    return loop.guard(loop.remote.videoStop()).catch(() => null);
  }

  /** The effect closes: the loop stopped (the input frames still open then; 0 where its worker died), the loop's worker ended. */
  async close(): Promise<number> {
    // Not waited for when the worker is dead (comlink would wait for ever).
    const loop = this.#loop;
    const open = await (loop ?? this.#worker).guard(this.loopRemote().videoStop()).catch(() => null);
    this.#loop = null;
    loop?.terminate();
    this.#spare?.track.stop();
    this.#spare = null;
    // A worker that died holds no frame.
    return open ?? 0;
  }
}

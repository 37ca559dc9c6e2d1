// createVideoEffect: a camera track in, a track with the background blurred, replaced or cut out, with
// the model, the frame loop and the compositor in the model's worker wherever the engine allows it.
import { proxy, transfer } from 'comlink';
import { BackendError, InvalidInputError } from '../errors/index.js';
import { refuseModelWord } from '../model/bundled-model.js';
import { DEFAULT_CONFIDENCE, validateConfidence } from '../pipeline/confidence.js';
import { deserializeError } from '../runtime/error-transfer.js';
import {
  createSegmenter,
  VIDEO_RECOVER,
  VIDEO_WORKER,
  type Fallback,
  type RuntimeBackendName,
  type Segmenter,
  type SegmenterOptions,
  type VideoWorker,
} from '../runtime/segmenter.js';
import type { CompanionWorker } from '../runtime/worker-backend.js';
import { defaultVideoModel } from './bundled-models.js';
import type { Rgb } from './effect.js';
import type { FrameReport, VideoEffectName, VideoMask, VideoPath, VideoSettings, VideoStartRequest } from './protocol.js';

export type { VideoEffectName, VideoMask, VideoPath };

/** A replacement colour (`'#rrggbb'`, any CSS colour, or [r, g, b] 0–255) or image (a Blob, a bitmap, an image, a canvas, a URL). */
export type VideoBackground = string | Rgb | Blob | ImageBitmap | ImageData | HTMLImageElement | HTMLCanvasElement | OffscreenCanvas | URL;

/** What can be changed while the effect runs. */
export interface VideoEffectSettings {
  /** Default `'blur'`. `'none'` passes frames through (masks still come to onMask); `'overlay'` paints each class. */
  effect?: VideoEffectName;
  /** For `'colour'` a colour (default a dark green), for `'image'` the picture, cover-fitted. */
  background?: VideoBackground;
  /** The background blur's strength, 0.25–4: the σ as a multiple of the default (the longest side / 64). Default 1. */
  blur?: number;
  /** 0–0.95: how much of its past a still part of the picture keeps each frame (0: raw per-frame masks). Default 0.7. */
  smoothing?: number;
  /** 0–100, as segment()'s: a pixel whose best class is less sure than this is background. Default 50. */
  confidence?: number;
}

export interface VideoEffectOptions extends VideoEffectSettings, Omit<SegmenterOptions, 'model' | 'backends' | 'hosted'> {
  /**
   * Anything `createSegmenter` takes as its model: a bundled model
   * (`import peopleLandscape from 'edgeseg/models/people-landscape'`), a package URL, `{ files }`, a version.
   * Default: the bundled people model (also by its name, `'people'`), which only this default brings.
   */
  model?: SegmenterOptions['model'];
  /** Tried in this order. Default `['webgpu', 'wasm']`: live video runs the model on this device. */
  backends?: Exclude<RuntimeBackendName, 'hosted'>[];
  /** `auto` (default): WebGL2 where it runs on a GPU, else canvas 2D. */
  compositor?: 'auto' | 'webgl2' | 'canvas2d';
  /**
   * `true`: each frame waits for its own mask. `false`: each frame is shown at once on the newest mask, and
   * the model takes a frame whenever it is free: lower latency, and as many frames out as the compositor
   * keeps up with where the model is slower than the camera; a moving edge lags by a model run. `'auto'`
   * (default): frames wait while the model and the frame loop keep pace with the camera, and stop waiting
   * while they do not.
   */
  waitForMask?: boolean | 'auto';
}

export interface VideoStats {
  /** Output frames in the last second. */
  fps: number;
  /** Frame in → frame out, ms, over the last 120 frames. */
  latency: { p50: number; p95: number };
  /** Frames closed unprocessed because the pipeline was busy. */
  dropped: number;
  /** Frames written. */
  frames: number;
  /** Frames drawn with the last good mask because the model failed on them. */
  reused: number;
  /**
   * Frames shown on the masks of the frame before them, instead of dropped: they came while the model
   * was busy, and a newer frame took the model when it was free (see `docs/video.md`).
   */
  carried: number;
  /** Masks the output showed: one per model run that reached it (fewer than `frames` where frames were carried). */
  masks: number;
  /** Whether frames wait for their own mask now (`waitForMask`; with `'auto'`, it follows the pace of the model and the frame loop). */
  waitsForMask: boolean;
  /**
   * Input frames held open in the worker at the last report: 0 between frames where the worker draws from
   * copies (the canvas 2D compositor: each frame is closed once copied), else at most 4 while the effect
   * runs (one being written, a carried one waiting for it, one at the model, one waiting for the model);
   * and 0 once it is closed (every frame read was closed).
   */
  openFrames: number;
  /** The backend that runs the model now. */
  backend: RuntimeBackendName;
  /** The backends left while the effect ran (a model that failed mid-call), in order: empty while none was. */
  fallbacks: readonly Fallback[];
  /** How many times the model's worker died and was replaced while the effect ran. */
  restarts: number;
  path: VideoPath | null;
  compositor: 'webgl2' | 'canvas2d' | null;
}

export type VideoEffectErrorHandler = (error: Error) => void;

// Chromium's track generator, which the page makes (its writable goes to the worker).
interface GeneratorConstructor {
  new (init: { kind: 'video' }): MediaStreamTrack & { writable: WritableStream<VideoFrame> };
}
interface ProcessorConstructor {
  new (init: { track: MediaStreamTrack }): { readable: ReadableStream<VideoFrame> };
}
const page = globalThis as unknown as {
  MediaStreamTrackGenerator?: GeneratorConstructor;
  MediaStreamTrackProcessor?: ProcessorConstructor;
};

const DEFAULT_COLOUR: Rgb = [20, 90, 60];

/**
 * Test hook: `effect[CRASH_LOOP_WORKER]()` makes the frame loop's own worker die (as a worker the browser
 * ended would: no answer, ever); false where the loop has no worker of its own. Only the worker of the
 * source tree plays it; the packaged worker has no fault injection.
 * @internal
 */
export const CRASH_LOOP_WORKER = Symbol.for('edgeseg.crashLoopWorker');

export class VideoEffect {
  #onMask: ((mask: VideoMask) => void) | null = null;
  /** Told when the loop stops on an error (the output track has ended). */
  onError: VideoEffectErrorHandler | null = null;
  readonly #segmenter: Segmenter;
  #worker: VideoWorker;
  /** The frame loop's worker (started with the first track, or with the effect where it makes the output), beside the model's. */
  #loop: CompanionWorker | null = null;
  /** The loop's worker while it starts (null: none started, or the last one died). */
  #loopStart: Promise<CompanionWorker | null> | null = null;
  /** Whether the frame loop may have a worker of its own (off once one failed to start). */
  #companions = true;
  #settings: VideoSettings;
  #path: VideoPath | null = null;
  #compositor: 'webgl2' | 'canvas2d' | null = null;
  #output: MediaStreamTrack | null = null;
  #track: MediaStreamTrack | null = null;
  /** The worker path's output: the generator's writable, fed by a relay from the loop's worker. */
  #sink: WritableStream<VideoFrame> | null = null;
  /** Stops the current loop's relay (the worker path); resolves once the generator's writable is free. */
  #detach: (() => Promise<void>) | null = null;
  /** Each loop's number: events from a loop that was replaced are ignored. */
  #generation = 0;
  #recovering = false;
  /** The current path's loop started again (on a new model worker, after a crash or a fallback). */
  #restart: (() => void) | null = null;
  /**
   * The spec's path: a track generator made ahead in the loop's worker (`owner`), whose track the next
   * process() returns; null where that worker has none.
   */
  #spare: { id: number; track: MediaStreamTrack; owner: CompanionWorker } | null = null;
  /** The loop on the spec's path runs in the loop's worker on a copy of the input track, which videoStop() ends. */
  #trackInWorker = false;
  #fallbacks: Fallback[] = [];
  #restarts = 0;
  /** Stops what the page runs for the current loop: the main-thread path's frame callbacks, the watch on the input. */
  #stopPage: (() => void) | null = null;
  #closed = false;
  #frames = 0;
  #reused = 0;
  #carried = 0;
  #masks = 0;
  #waitsForMask: boolean;
  #dropped = 0;
  #mainDropped = 0;
  #openFrames = 0;
  #shown: number[] = [];
  #latencies: number[] = [];

  private constructor(segmenter: Segmenter, worker: VideoWorker, settings: VideoSettings) {
    this.#segmenter = segmenter;
    this.#worker = worker;
    this.#settings = settings;
    this.#waitsForMask = settings.waitForMask !== false;
  }

  /** @internal — use createVideoEffect. */
  static async create(options: VideoEffectOptions = {}): Promise<VideoEffect> {
    if (typeof options !== 'object' || options === null)
      throw new InvalidInputError('OPTION_INVALID', 'createVideoEffect takes an options object');
    const settings = await resolveSettings(options, null);
    if ((options.backends as string[] | undefined)?.includes('hosted'))
      throw new InvalidInputError(
        'OPTION_INVALID',
        'live video runs the model on this device: hosted is not a backend for createVideoEffect',
      );
    const compositor = options.compositor ?? 'auto';
    if (!['auto', 'webgl2', 'canvas2d'].includes(compositor))
      throw new InvalidInputError('OPTION_INVALID', `compositor must be auto, webgl2 or canvas2d`);
    const waitForMask = options.waitForMask ?? 'auto';
    if (waitForMask !== true && waitForMask !== false && waitForMask !== 'auto')
      throw new InvalidInputError('OPTION_INVALID', `waitForMask must be true, false or 'auto'`);
    const {
      model,
      effect: _e,
      background: _b,
      blur: _bl,
      smoothing: _s,
      confidence: _c,
      compositor: _co,
      waitForMask: _w,
      ...rest
    } = options;
    const segmenter = await createSegmenter({
      ...rest,
      backends: options.backends ?? ['webgpu', 'wasm'],
      model: await modelOf(model),
    });
    const worker = segmenter[VIDEO_WORKER]();
    if (!worker) {
      await segmenter.dispose();
      throw new BackendError('BACKEND_UNAVAILABLE', 'live video needs the model in a worker (webgpu or wasm)');
    }
    const effect = new VideoEffect(segmenter, worker, { ...settings, compositor, waitForMask });
    await effect.#makeSpare();
    return effect;
  }

  /**
   * Where the page has no track generator, the spec's path needs one made in the loop's worker before
   * process() is called (it returns the output at once); none where that worker cannot make one either.
   */
  async #makeSpare(): Promise<void> {
    if (page.MediaStreamTrackGenerator || this.#closed) return;
    const owner = await this.#companion();
    if (!owner) return;
    const made = await owner.guard(owner.remote.videoOutput()).catch(() => null);
    if (made && !this.#closed && this.#loop === owner) this.#spare = { ...made, owner };
    else made?.track.stop();
  }

  /** @internal */
  async [CRASH_LOOP_WORKER](): Promise<boolean> {
    const loop = this.#loop;
    if (!loop) return false;
    await loop.remote.injectFault('crash');
    // The armed crash plays at the next ping; the guard lets go of the call once the worker is gone.
    void loop.guard(loop.remote.ping()).catch(() => undefined);
    return true;
  }

  /** Each frame's class ids at the network's resolution, with the frame's timestamp; set to receive them. */
  get onMask(): ((mask: VideoMask) => void) | null {
    return this.#onMask;
  }

  set onMask(handler: ((mask: VideoMask) => void) | null) {
    const changed = (handler === null) !== (this.#onMask === null);
    this.#onMask = handler;
    // The worker copies each mask out only while someone listens.
    if (changed && !this.#closed) {
      this.#settings = { ...this.#settings, masks: handler !== null };
      void this.#loopRemote()
        .videoUpdate(this.#wire())
        .catch(() => undefined);
    }
  }

  get stats(): VideoStats {
    const now = performance.now();
    while (this.#shown.length && this.#shown[0]! <= now - 1000) this.#shown.shift();
    const sorted = [...this.#latencies].sort((a, b) => a - b);
    const at = (q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : 0);
    return {
      fps: this.#shown.length,
      latency: { p50: at(0.5), p95: at(0.95) },
      dropped: this.#dropped + this.#mainDropped,
      frames: this.#frames,
      reused: this.#reused,
      carried: this.#carried,
      masks: this.#masks,
      waitsForMask: this.#waitsForMask,
      openFrames: this.#openFrames,
      backend: this.#segmenter.backend,
      fallbacks: [...this.#fallbacks],
      restarts: this.#restarts,
      path: this.#path,
      compositor: this.#compositor,
    };
  }

  /** The segmenter that runs the model (its backend, fallbacks, spec). */
  get segmenter(): Segmenter {
    return this.#segmenter;
  }

  /**
   * Starts the effect on a live video track and returns the output track. One track at a time: a second
   * call while one runs is refused (VIDEO_BUSY); so are an ended track (TRACK_ENDED) and one that is not
   * video (TRACK_NOT_VIDEO). When the input ends, the output ends.
   */
  process(track: MediaStreamTrack): MediaStreamTrack {
    if (this.#closed) throw new BackendError('DISPOSED', 'this video effect was closed');
    if (typeof MediaStreamTrack === 'undefined' || !(track instanceof MediaStreamTrack))
      throw new InvalidInputError('TRACK_NOT_VIDEO', 'process() takes a MediaStreamTrack');
    if (track.kind !== 'video') throw new InvalidInputError('TRACK_NOT_VIDEO', `process() takes a video track, not ${track.kind}`);
    if (track.readyState === 'ended') throw new InvalidInputError('TRACK_ENDED', 'the track has ended');
    if (this.#output && this.#output.readyState !== 'ended')
      throw new InvalidInputError('VIDEO_BUSY', 'this video effect is processing a track already: close() it, or create another');
    this.#track = track;
    this.#trackInWorker = false;
    if (page.MediaStreamTrackGenerator && page.MediaStreamTrackProcessor) {
      const generator = new page.MediaStreamTrackGenerator({ kind: 'video' });
      this.#path = 'worker';
      this.#output = generator;
      this.#sink = generator.writable;
      this.#restart = () => this.#startWorkerLoop(track);
      this.#startWorkerLoop(track);
      return generator;
    }
    const spare = this.#spare;
    this.#spare = null;
    if (spare && spare.owner === this.#loop && spare.track.readyState === 'live') {
      // The next one made now, so that a process() after this track ends finds one.
      void this.#makeSpare();
      return this.#startTrackLoop(track, spare);
    }
    spare?.track.stop();
    return this.#startMainThread(track);
  }

  /** The events of the loop numbered `generation`: a replaced loop's are ignored. */
  #events(generation: number) {
    return proxy({
      frame: (report: FrameReport) => {
        if (generation === this.#generation) this.#report(report);
      },
      ended: (error?: Parameters<typeof deserializeError>[0]) => {
        // A loop stopped while its worker is replaced is not the effect's end.
        if (generation === this.#generation && !this.#recovering) this.#ended(error ? deserializeError(error) : undefined);
      },
    });
  }

  /**
   * Chromium: a track processor's frames go to the loop's worker (a companion of the model's, so that the
   * next frame is at the model while this one is composited), which writes its frames to a relay whose
   * other end the page pipes into the generator, so that a new worker (after a crash or a fallback) can
   * take over the same output track.
   */
  #startWorkerLoop(track: MediaStreamTrack): void {
    const generation = ++this.#generation;
    const { readable } = new page.MediaStreamTrackProcessor!({ track });
    const relay = new TransformStream<VideoFrame, VideoFrame>();
    const unpipe = new AbortController();
    // Not closed with the relay: a replaced worker's loop closes its relay, and the output goes on.
    const piped = relay.readable
      .pipeTo(this.#sink!, { preventClose: true, preventAbort: true, preventCancel: true, signal: unpipe.signal })
      .catch(() => undefined);
    this.#detach = () => {
      unpipe.abort();
      return piped;
    };
    const input = { kind: 'streams', readable, writable: relay.writable, frameRate: track.getSettings().frameRate } as const;
    this.#startLoop(
      generation,
      input,
      [readable, relay.writable],
      () => this.#detach?.(),
      () => this.#startWorkerLoop(track),
    ).catch(() => undefined);
  }

  /**
   * The spec's path (Safari 18): a copy of the track goes to the loop's worker, which reads it and writes
   * the generator whose track (`output`) it made ahead. A new model worker takes over there, on the same
   * output; the output lives in the loop's worker, so if that worker dies, the output ends with an error.
   */
  #startTrackLoop(track: MediaStreamTrack, output: { id: number; track: MediaStreamTrack }): MediaStreamTrack {
    this.#path = 'worker';
    this.#output = output.track;
    this.#trackInWorker = true;
    this.#stopPage = this.#watchInput(track);
    const frameRate = track.getSettings().frameRate;
    const start = () => {
      const generation = ++this.#generation;
      // A copy: a track sent to a worker ends on the page, and the caller's is the caller's.
      const copy = track.clone();
      const input = { kind: 'track', track: copy, output: output.id, ...(frameRate ? { frameRate } : {}) } as const;
      this.#startLoop(
        generation,
        input,
        [copy as unknown as Transferable],
        () => undefined,
        () => {
          this.#ended(new BackendError('WORKER_CRASHED', "the frame loop's worker died, and the output track it wrote with it"), true);
          // A new loop worker, with a generator made ahead, for the next process().
          void this.#makeSpare();
        },
      ).catch(() => undefined);
    };
    this.#restart = start;
    start();
    return output.track;
  }

  /**
   * Ends the effect when `track` ends, for the paths that do not read it on the page: an 'ended' event comes
   * only when the source ends it, so a stop() here is seen by polling. Returns the watch's stop.
   */
  #watchInput(track: MediaStreamTrack): () => void {
    const inputEnded = () => {
      this.#recovering = false;
      this.#ended();
    };
    const watch = setInterval(() => {
      if (track.readyState === 'ended') inputEnded();
    }, 250);
    track.addEventListener('ended', inputEnded, { once: true });
    return () => {
      clearInterval(watch);
      track.removeEventListener('ended', inputEnded);
    };
  }

  /**
   * Starts loop `generation` on `input`: in the loop's own worker, with the model served to it from the
   * model's worker, or in the model's worker where the loop has none. A dead model worker is recovered
   * from; a dead loop worker is replaced (`stop` the old loop, then `restart`).
   */
  async #startLoop(
    generation: number,
    input: VideoStartRequest['input'],
    transferables: Transferable[],
    stop: () => Promise<void> | undefined,
    restart: () => void,
  ): Promise<void> {
    const model = this.#worker;
    model.died.catch((error: Error) => {
      if (generation === this.#generation) void this.#recover('crashed', error);
    });
    const loop = await this.#companion();
    let [started, loopDied] = [false, false];
    loop?.died.catch(() => {
      loopDied = true;
      if (generation !== this.#generation || this.#closed) return;
      // A loop worker that died is replaced (one that never started a loop is not tried again: the loop
      // then runs beside the model, in one worker).
      [this.#loop, this.#loopStart] = [null, null];
      loop.terminate();
      if (started) this.#restarts++;
      else this.#companions = false;
      void Promise.resolve(stop()).then(() => {
        if (generation === this.#generation && !this.#closed && this.#track?.readyState === 'live') restart();
      });
    });
    const start = async () => {
      if (!loop) return model.remote.videoStart(transfer({ input, settings: this.#wire() }, transferables), this.#events(generation));
      const channel = new MessageChannel();
      await model.guard(model.remote.videoServeModel(transfer(channel.port1, [channel.port1])));
      const request: VideoStartRequest = { input, settings: this.#wire(), model: { spec: this.#segmenter.spec!, port: channel.port2 } };
      return loop.guard(loop.remote.videoStart(transfer(request, [...transferables, channel.port2]), this.#events(generation)));
    };
    return start().then(
      (result) => {
        started = true;
        this.#compositor = result.compositor;
      },
      (error: unknown) => {
        // A loop worker that died is replaced above.
        if (generation === this.#generation && !loopDied) this.#ended(error as Error);
        throw error;
      },
    );
  }

  /**
   * The frame loop's own worker, started once, when it answers: null where companions are off (one did
   * not start, or died before its loop started), and the loop runs in the model's worker.
   */
  #companion(): Promise<CompanionWorker | null> {
    if (!this.#companions || this.#closed) return Promise.resolve(null);
    this.#loopStart ??= this.#worker.companion().then(
      (loop) => {
        if (this.#closed) {
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

  /** The worker that runs the frame loop: the companion, or the model's. */
  #loopRemote(): VideoWorker['remote'] {
    return this.#loop?.remote ?? this.#worker.remote;
  }

  /**
   * The model failed mid-call (`failed`: the next backend, as createSegmenter moves a failed call) or its
   * worker died (`crashed`: a fresh worker on the same backend). Meanwhile a failed backend's loop goes on
   * with the last good mask; once the new worker runs, the loop starts there on the same output track.
   */
  async #recover(failure: 'crashed' | 'failed', error: Error): Promise<void> {
    if (this.#recovering || this.#closed || !this.#track || this.#track.readyState === 'ended') return;
    this.#recovering = true;
    const before = {
      backend: this.#segmenter.backend,
      fallbacks: this.#segmenter.fallbacks.length,
      restarts: this.#segmenter.workerRestarts,
    };
    try {
      const moved = await this.#segmenter[VIDEO_RECOVER](failure, error);
      if (!moved || this.#closed) return;
      if ((this.#track.readyState as MediaStreamTrackState) === 'ended') {
        this.#recovering = false;
        this.#ended();
        return;
      }
      this.#fallbacks.push(...this.#segmenter.fallbacks.slice(before.fallbacks).filter((f) => f.backend === before.backend));
      this.#restarts += this.#segmenter.workerRestarts - before.restarts;
      const worker = this.#segmenter[VIDEO_WORKER]();
      if (!worker) return;
      this.#worker = worker;
      await this.#detach?.();
      this.#restart?.();
    } catch (thrown) {
      // No worker could take over (the model no longer loads): the effect ends with that error.
      this.#recovering = false;
      if (!this.#closed) this.#ended(thrown as Error, true);
    } finally {
      this.#recovering = false;
    }
  }

  /** Changes the effect, background, blur, smoothing or confidence while running; rejects (and keeps the effect before) when the background cannot be decoded. */
  async update(partial: VideoEffectSettings): Promise<void> {
    if (this.#closed) throw new BackendError('DISPOSED', 'this video effect was closed');
    const next = await resolveSettings(partial, this.#settings);
    this.#settings = next;
    await this.#loopRemote().videoUpdate(this.#wire());
  }

  /** Ends the output track, stops the frame loop and frees the worker, its GPU resources and every frame. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stopPage?.();
    void this.#finish();
    // Not waited for when the worker is dead (comlink would wait for ever).
    const loop = this.#loop;
    const open = await (loop ?? this.#worker).guard(this.#loopRemote().videoStop()).catch(() => null);
    // A worker that died holds no frame.
    this.#openFrames = open ?? 0;
    this.#loop = null;
    loop?.terminate();
    this.#output?.stop();
    this.#spare?.track.stop();
    this.#spare = null;
    this.#settings.image?.close();
    await this.#segmenter.dispose();
  }

  /** The settings as the worker takes them: the image a copy of ours (it is transferred). */
  #wire(): VideoSettings {
    return { ...this.#settings, masks: this.#onMask !== null };
  }

  #report(report: FrameReport): void {
    // A report that comes after close() (its own port may be behind the worker's answer to it) would undo
    // the count of open frames that the stopped loop gave.
    if (this.#closed) return;
    this.#dropped = report.dropped;
    this.#waitsForMask = report.waiting;
    if (report.openFrames !== undefined) this.#openFrames = report.openFrames;
    if (report.latency === undefined) return;
    this.#frames++;
    if (report.reused) this.#reused++;
    if (report.carried) this.#carried++;
    if (report.fresh) this.#masks++;
    if (report.failure) void this.#recover('failed', deserializeError(report.failure));
    const now = performance.now();
    // Kept to the last second here too, not only when stats are read: an app may never read them.
    while (this.#shown.length && this.#shown[0]! <= now - 1000) this.#shown.shift();
    this.#shown.push(now);
    this.#latencies.push(report.latency);
    if (this.#latencies.length > 120) this.#latencies.shift();
    if (report.mask) this.#onMask?.(report.mask);
  }

  /** The effect's end: the output track ended; `error`, where it stopped on one (a backend failure or a dead worker is recovered from first, unless `final`). */
  #ended(error?: Error, final = false): void {
    // A loop that stopped because the model failed on its first frame (no good mask yet) moves on too.
    const code = (error as { code?: string } | undefined)?.code;
    if (
      error &&
      !final &&
      !this.#closed &&
      (code === 'BACKEND_FAILED' || code === 'WORKER_CRASHED') &&
      this.#track?.readyState === 'live'
    ) {
      void this.#recover(code === 'WORKER_CRASHED' ? 'crashed' : 'failed', error);
      return;
    }
    void this.#finish();
    this.#stopPage?.();
    this.#output?.stop();
    if (error && !this.#closed) this.onError?.(error);
  }

  /**
   * Ends the worker path's output: the relay unpiped, the generator's writable closed (its readers see the
   * end); on the spec's path, the loop and its generator in the loop's worker.
   */
  async #finish(): Promise<void> {
    const [detach, sink] = [this.#detach, this.#sink];
    this.#detach = null;
    this.#sink = null;
    await detach?.();
    await sink?.close().catch(() => undefined);
    if (!this.#trackInWorker) return;
    this.#trackInWorker = false;
    const loop = this.#loop;
    if (!loop || this.#closed) return;
    const open = await loop.guard(loop.remote.videoStop()).catch(() => null);
    if (open !== null) this.#openFrames = open;
  }

  /** Firefox: frames read on this thread as the video element shows them, composited in the worker, shown on a captured canvas. */
  #startMainThread(track: MediaStreamTrack): MediaStreamTrack {
    this.#path = 'main-thread';
    const video = document.createElement('video');
    video.muted = true;
    video.playsInline = true;
    video.srcObject = new MediaStream([track]);
    const canvas = document.createElement('canvas');
    [canvas.width, canvas.height] = [track.getSettings().width ?? 640, track.getSettings().height ?? 480];
    const shown = canvas.getContext('bitmaprenderer')!;
    const output = canvas.captureStream().getVideoTracks()[0]!;
    this.#output = output;
    let stopped = false;
    let [inFlight, sent, shownSequence] = [0, 0, 0];
    let started = false;
    let handle = 0;
    let playing = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      unwatch();
      video.cancelVideoFrameCallback(handle);
      video.pause();
      video.srcObject = null;
      output.stop();
    };
    this.#stopPage = stop;
    const unwatch = this.#watchInput(track);
    // The camera's frames not sent since the last one sent (two were in flight): the worker's pace counts
    // them, so that it sees the camera's frame rate, not the rate frames were sent at.
    let skipped = 0;
    // Two frames in flight: the next one's input is drawn while the model runs on this one. Results come
    // back in order; one older than the last shown (a replaced loop's) is dropped.
    const onFrame = (_: number, metadata?: VideoFrameCallbackMetadata) => {
      if (stopped) return;
      handle = video.requestVideoFrameCallback(onFrame);
      if (inFlight >= 2 || this.#recovering || !started) {
        this.#mainDropped++;
        skipped = inFlight >= 2 && started ? skipped + 1 : 0;
        return;
      }
      // The frame's own timestamp, in VideoFrame.timestamp's units (µs): its media time.
      const timestamp = Math.round((metadata?.mediaTime ?? video.currentTime) * 1e6);
      const meta = { timestamp, skipped };
      skipped = 0;
      inFlight++;
      const generation = this.#generation;
      const sequence = ++sent;
      const loop = this.#loop;
      const remote = this.#loopRemote();
      // Settled by either worker's death too (comlink would wait for ever).
      const guard = <T>(call: Promise<T>) => this.#worker.guard(loop ? loop.guard(call) : call);
      void (async () => {
        try {
          // A bitmap, not a VideoFrame: WebKit's worker canvases drew a VideoFrame made from a <video> as nothing.
          const frame = await createImageBitmap(video);
          const result = await guard(remote.videoFrame(transfer(frame, [frame as unknown as Transferable]), meta));
          // Not shown (the worker's loop stopped, or failed on a frame before it, which says so itself).
          if (!result) return;
          const { bitmap, report } = result;
          if (stopped || generation !== this.#generation || sequence < shownSequence) bitmap.close();
          else {
            shownSequence = sequence;
            if (canvas.width !== bitmap.width || canvas.height !== bitmap.height)
              [canvas.width, canvas.height] = [bitmap.width, bitmap.height];
            shown.transferFromImageBitmap(bitmap);
            this.#report(report);
          }
        } catch (error) {
          // A dead loop worker is replaced by #startLoop; a dead model worker is recovered from here.
          const loopDied = loop !== null && this.#loop !== loop;
          if ((error as { code?: string }).code === 'WORKER_CRASHED' && generation === this.#generation) {
            if (!loopDied) void this.#recover('crashed', error as Error);
          } else if (generation === this.#generation && !this.#recovering) {
            stop();
            if (!this.#closed) this.onError?.(error as Error);
          }
        } finally {
          inFlight--;
        }
      })();
    };
    const start = () => {
      const generation = ++this.#generation;
      started = false;
      const { frameRate } = track.getSettings();
      this.#startLoop(generation, { kind: 'frames', ...(frameRate ? { frameRate } : {}) }, [], () => undefined, start)
        .then(async () => {
          started = true;
          if (playing) return;
          playing = true;
          handle = video.requestVideoFrameCallback(onFrame);
          await video.play();
        })
        // A loop that could not start has ended the effect (#startLoop); a play() refused ends it here.
        .catch((error: unknown) => {
          if (generation !== this.#generation || stopped) return;
          stop();
          if (!this.#closed) this.onError?.(error as Error);
        });
    };
    this.#restart = start;
    start();
    return output;
  }
}

/**
 * A video effect: `process(track)` returns the track with the effect. Rejects with OPTION_INVALID for a
 * bad option, IMAGE_DECODE_FAILED for a background that does not decode, and as createSegmenter does
 * when no backend can run the model.
 */
export function createVideoEffect(options: VideoEffectOptions = {}): Promise<VideoEffect> {
  return VideoEffect.create(options);
}

async function modelOf(model: SegmenterOptions['model'] | undefined): Promise<SegmenterOptions['model']> {
  // The default, left out or by name: brought into a build only by an app that calls createVideoEffect.
  if (model === undefined || model === 'people') return defaultVideoModel();
  refuseModelWord(model, 'createVideoEffect');
  return model;
}

const EFFECTS: readonly VideoEffectName[] = ['none', 'overlay', 'blur', 'colour', 'image', 'cutout'];

/** Checks `partial` and merges it over `base` (the defaults when null), decoding a new background. */
async function resolveSettings(partial: VideoEffectSettings, base: VideoSettings | null): Promise<VideoSettings> {
  if (typeof partial !== 'object' || partial === null)
    throw new InvalidInputError('OPTION_INVALID', 'update() takes an object of settings');
  const effect = partial.effect ?? base?.effect ?? 'blur';
  if (!EFFECTS.includes(effect))
    throw new InvalidInputError('OPTION_INVALID', `effect must be one of ${EFFECTS.join(', ')}; got ${String(effect)}`);
  const blur = partial.blur ?? base?.blur ?? 1;
  if (!(typeof blur === 'number' && blur >= 0.25 && blur <= 4))
    throw new InvalidInputError('OPTION_INVALID', `blur must be a number 0.25–4, got ${String(blur)}`);
  const smoothing = partial.smoothing ?? base?.smoothing ?? 0.7;
  if (!(typeof smoothing === 'number' && smoothing >= 0 && smoothing <= 0.95))
    throw new InvalidInputError('OPTION_INVALID', `smoothing must be a number 0–0.95, got ${String(smoothing)}`);
  const confidence = validateConfidence(partial.confidence ?? base?.confidence ?? DEFAULT_CONFIDENCE);
  let colour = base?.colour ?? DEFAULT_COLOUR;
  let image = base?.image ?? null;
  if (partial.background !== undefined) {
    const parsed = await decodeBackground(partial.background, effect);
    if ('colour' in parsed) colour = parsed.colour;
    else image = parsed.image;
  }
  return {
    effect,
    colour,
    image,
    blur,
    smoothing,
    confidence,
    masks: base?.masks ?? false,
    compositor: base?.compositor ?? 'auto',
    waitForMask: base?.waitForMask ?? 'auto',
  };
}

async function decodeBackground(background: VideoBackground, effect: VideoEffectName): Promise<{ colour: Rgb } | { image: ImageBitmap }> {
  if (Array.isArray(background)) {
    if (background.length !== 3 || background.some((v) => !Number.isInteger(v) || v < 0 || v > 255))
      throw new InvalidInputError('OPTION_INVALID', 'a background colour as [r, g, b] takes integers 0–255');
    return { colour: [background[0]!, background[1]!, background[2]!] };
  }
  if (typeof background === 'string' && effect !== 'image') {
    const colour = cssColour(background);
    if (!colour) throw new InvalidInputError('OPTION_INVALID', `not a colour: ${background}`);
    return { colour };
  }
  try {
    let source: ImageBitmapSource = background as ImageBitmapSource;
    if (typeof background === 'string' || background instanceof URL) {
      const response = await fetch(background);
      if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
      source = await response.blob();
    }
    return { image: await createImageBitmap(source) };
  } catch (cause) {
    throw new InvalidInputError('IMAGE_DECODE_FAILED', `the background image could not be decoded: ${(cause as Error).message}`, { cause });
  }
}

/** Any CSS colour → [r, g, b], through a canvas; null when the canvas does not take it. */
function cssColour(text: string): Rgb | null {
  const ctx = new OffscreenCanvas(1, 1).getContext('2d')!;
  // A value the canvas refuses leaves the previous one: two different probes tell a refusal from a match.
  for (const probe of ['#000000', '#ffffff']) {
    ctx.fillStyle = probe;
    ctx.fillStyle = text;
    if (ctx.fillStyle === probe) {
      ctx.fillStyle = probe === '#000000' ? '#ffffff' : '#000000';
      ctx.fillStyle = text;
      if (ctx.fillStyle !== probe) return null;
    }
  }
  ctx.fillRect(0, 0, 1, 1);
  const [r, g, b] = ctx.getImageData(0, 0, 1, 1).data;
  return [r!, g!, b!];
}

// createVideoEffect: a camera track in, a track with the background blurred, replaced or cut out, with
// the model, the frame loop and the compositor in workers wherever the engine allows it. This front checks
// calls and keeps the effect's settings; how frames come is an InputPath's (one file per engine's way), the
// loop, its workers and what a failure does are the LoopSupervisor's, the stats the VideoStatsRecorder's,
// the options video-options.ts's.
import { BackendError, InvalidInputError } from '../errors/index.js';
import { Segmenter } from '../runtime/segmenter.js';
import { FramesPath } from './frames-path.js';
import type { InputPath, PathContext } from './input-path.js';
import { LoopSupervisor, modelWorkerOf } from './loop-supervisor.js';
import {
  PUBLIC_PATH,
  type FrameReport,
  type VideoEffectName,
  type VideoMask,
  type VideoPath,
  type VideoSettings,
  type VideoStages,
} from './protocol.js';
import { pageHasGenerator, StreamsPath } from './streams-path.js';
import { TrackPath } from './track-path.js';
import { registerVideoInternals } from './video-internals.js';
import { parseVideoOptions, resolveSettings, type VideoEffectOptions, type VideoEffectSettings } from './video-options.js';
import { VideoStatsRecorder, type VideoStats } from './video-stats.js';

export type { VideoEffectName, VideoMask, VideoPath, VideoStages, VideoStats };
export type { DeprecatedVideoEffectName, VideoBackground, VideoEffectOptions, VideoEffectSettings } from './video-options.js';

/** Told when the effect stops on an error (its output track has ended). */
export type VideoEffectErrorHandler = (error: Error) => void;

/**
 * Live video with its background blurred, replaced or cut out: `process(track)` gives the output track, and
 * `update()` changes the effect while it runs. Each frame is segmented by the model's worker, its mask smoothed
 * over time and refined at the frame's resolution, and the frame composited, in a worker where the engine
 * allows. Made by `createVideoEffect`.
 */
export class VideoEffect {
  #onMask: ((mask: VideoMask) => void) | null = null;
  /** Told when the loop stops on an error (the output track has ended). */
  onError: VideoEffectErrorHandler | null = null;
  readonly #segmenter: Segmenter;
  readonly #supervisor: LoopSupervisor;
  readonly #stats: VideoStatsRecorder;
  #settings: VideoSettings;
  /** The pixel limit a new background is held to (the options' maxPixels). */
  readonly #maxPixels: number;
  #closed = false;

  private constructor(segmenter: Segmenter, settings: VideoSettings, maxPixels: number) {
    this.#segmenter = segmenter;
    this.#settings = settings;
    this.#maxPixels = maxPixels;
    this.#stats = new VideoStatsRecorder(settings.waitForMask !== false);
    this.#supervisor = new LoopSupervisor(segmenter, modelWorkerOf(segmenter)!, {
      settings: () => this.#wire(),
      report: (report) => this.#report(report),
      failed: (error) => {
        if (!this.#closed) this.onError?.(error);
      },
    });
    registerVideoInternals(this, { loopWorker: () => this.#supervisor.loop });
  }

  /** @internal — use createVideoEffect. */
  static async create(options: VideoEffectOptions = {}): Promise<VideoEffect> {
    const parsed = await parseVideoOptions(options);
    // 'video': the default threads leave a core to the frame loop's worker.
    const segmenter = await Segmenter.create(parsed.segmenter, 'video');
    if (!modelWorkerOf(segmenter)) {
      await segmenter.dispose();
      throw new BackendError('BACKEND_UNAVAILABLE', 'live video needs the model in a worker (webgpu or wasm)');
    }
    const effect = new VideoEffect(segmenter, parsed.settings, parsed.maxPixels);
    // Where the page has no track generator, the track path needs one made ahead in the loop's worker.
    if (!pageHasGenerator()) await effect.#supervisor.makeSpare();
    return effect;
  }

  /** Each frame's class ids at the network's resolution, with the frame's timestamp; set to receive them. */
  get onMask(): ((mask: VideoMask) => void) | null {
    return this.#onMask;
  }

  /** Set a handler to receive each frame's class ids (the worker copies them out only while one is set); null stops them. */
  set onMask(handler: ((mask: VideoMask) => void) | null) {
    const changed = (handler === null) !== (this.#onMask === null);
    this.#onMask = handler;
    // The worker copies each mask out only while someone listens.
    if (changed && !this.#closed) {
      this.#settings = { ...this.#settings, masks: handler !== null };
      void this.#supervisor
        .loopRemote()
        .videoUpdate(this.#wire())
        .catch(() => undefined);
    }
  }

  /** What the effect did so far (frames, masks, drops, latency) and how it runs now (backend, path, compositor): a fresh object each read. */
  get stats(): VideoStats {
    const supervisor = this.#supervisor;
    return this.#stats.stats({
      backend: this.#segmenter.backend,
      fallbacks: supervisor.fallbacks,
      restarts: supervisor.restarts,
      path: supervisor.path ? PUBLIC_PATH[supervisor.path.kind] : null,
      compositor: supervisor.compositor,
      threads: this.#segmenter.threads,
    });
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
    const supervisor = this.#supervisor;
    if (supervisor.path && supervisor.path.output.readyState !== 'ended')
      throw new InvalidInputError('VIDEO_BUSY', 'this video effect is processing a track already: close() it, or create another');
    const context: PathContext = { loop: supervisor, stats: this.#stats };
    let path: InputPath;
    if (pageHasGenerator()) path = new StreamsPath(track);
    else {
      const spare = supervisor.takeSpare();
      // The next one made now, so that a process() after this track ends finds one.
      if (spare) void supervisor.makeSpare();
      path = spare ? new TrackPath(track, spare, context) : new FramesPath(track, context);
    }
    supervisor.run(path);
    return path.output;
  }

  /** Changes the effect, background, blur, smoothing or confidence while running; rejects (and keeps the effect before) when the background cannot be decoded. */
  async update(partial: VideoEffectSettings): Promise<void> {
    if (this.#closed) throw new BackendError('DISPOSED', 'this video effect was closed');
    const next = await resolveSettings(partial, this.#settings, this.#maxPixels);
    this.#settings = next;
    await this.#supervisor.loopRemote().videoUpdate(this.#wire());
  }

  /** Ends the output track, stops the frame loop and frees the worker, its GPU resources and every frame. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#stats.openFrames = await this.#supervisor.close();
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
    if (!this.#stats.record(report)) return;
    if (report.mask) this.#onMask?.(report.mask);
  }
}

/**
 * A video effect: `process(track)` returns the track with the effect. Rejects with OPTION_INVALID for a
 * bad option, IMAGE_DECODE_FAILED for a background that does not decode, and as createSegmenter does
 * when no backend can run the model.
 *
 * @param options - The effect's first settings and the model; every one has a default (the people model, `'blur'`).
 * @returns The effect, its model loaded in its worker; call `process(track)` to start it.
 *
 * @example
 * A camera with its background blurred, shown in a `<video>`:
 * ```ts
 * import { createVideoEffect } from 'edgeseg';
 *
 * const camera = await navigator.mediaDevices.getUserMedia({ video: true });
 * const effect = await createVideoEffect({ effect: 'blur' }); // the bundled people model
 * video.srcObject = new MediaStream([effect.process(camera.getVideoTracks()[0]!)]);
 * await effect.update({ effect: 'image', background: '/beach.jpg' }); // switch while it runs
 * await effect.close(); // ends the output track and frees the workers
 * ```
 */
export function createVideoEffect(options: VideoEffectOptions = {}): Promise<VideoEffect> {
  return VideoEffect.create(options);
}

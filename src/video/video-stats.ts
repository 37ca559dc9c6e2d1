// What createVideoEffect's stats count, from the reports of the frame loop.
import type { Fallback, RuntimeBackendName } from '../runtime/segmenter.js';
import type { ThreadChoice } from '../runtime/threads.js';
import type { FrameReport, VideoPath, VideoStages } from './protocol.js';

/** `VideoEffect.stats`: what the effect did so far, and how it runs now. */
export interface VideoStats {
  /** Output frames in the last second. */
  fps: number;
  /** Frame in → frame out, ms, over the last 120 frames. */
  latency: {
    /** The median. */
    p50: number;
    /** The 95th percentile. */
    p95: number;
  };
  /**
   * How much older than the frame shown the frame its mask was made from is, ms, over the last 120
   * frames: 0 where each frame waits for its own mask; a moving edge lags by this (plus the latency).
   */
  maskAge: {
    /** The median. */
    p50: number;
    /** The 95th percentile. */
    p95: number;
  };
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
   * Input frames held open in the worker at the last report: 0 between frames on the `worker` path with
   * either compositor (each frame it keeps is copied, on the CPU for canvas 2D and on the GPU for WebGL2,
   * and closed at once), and 0 once the effect is closed (every frame read was closed).
   */
  openFrames: number;
  /** The backend that runs the model now. */
  backend: RuntimeBackendName;
  /** The backends left while the effect ran (a model that failed mid-call), in order: empty while none was. */
  fallbacks: readonly Fallback[];
  /** How many times the model's worker died and was replaced while the effect ran. */
  restarts: number;
  /** Which way frames go (see `VideoPath`); null before the first `process()`. */
  path: VideoPath | null;
  /** The compositor the frame loop draws with; null before the loop started. */
  compositor: 'webgl2' | 'canvas2d' | null;
  /**
   * The model's WASM threads and why (`Segmenter.threads`): by default one core fewer than for stills,
   * which the frame loop's worker takes.
   */
  threads: ThreadChoice;
  /**
   * Where a frame's time goes, ms: each stage's median over the last 120 frames that had it (0 before
   * any had; the model's stages come with fresh masks only). See `VideoStages`; the `main-thread` path
   * has no `copy` or `write`.
   */
  stages: VideoStages;
}

/** The counts behind `VideoEffect.stats`, kept from the loop's reports. */
export class VideoStatsRecorder {
  #frames = 0;
  #reused = 0;
  #carried = 0;
  #masks = 0;
  #waitsForMask: boolean;
  /** Frames the worker's loop dropped, and those the page skipped (the frames path). */
  #dropped = 0;
  #skipped = 0;
  #openFrames = 0;
  /** When each frame of the last second was written (ms), and the latency of the last 120. */
  readonly #shown: number[] = [];
  readonly #latencies: number[] = [];
  readonly #maskAges: number[] = [];
  readonly #stages = Object.fromEntries(STAGES.map((k) => [k, [] as number[]])) as Record<keyof VideoStages, number[]>;

  constructor(waitsForMask: boolean) {
    this.#waitsForMask = waitsForMask;
  }

  /** A report of the loop; true where a frame was written. */
  record(report: FrameReport): boolean {
    this.#dropped = report.dropped;
    this.#waitsForMask = report.waiting;
    if (report.openFrames !== undefined) this.#openFrames = report.openFrames;
    if (report.latency === undefined) return false;
    this.#frames++;
    if (report.reused) this.#reused++;
    if (report.carried) this.#carried++;
    if (report.fresh) this.#masks++;
    const now = performance.now();
    // Kept to the last second here too, not only when stats are read: an app may never read them.
    this.#trim(now);
    this.#shown.push(now);
    keepLast(this.#latencies, report.latency);
    keepLast(this.#maskAges, report.maskAge ?? 0);
    for (const k of STAGES) {
      const ms = report.stages?.[k];
      if (ms !== undefined) keepLast(this.#stages[k], ms);
    }
    return true;
  }

  /** The frames path's page skipped a camera frame (two were in flight). */
  skipped(): void {
    this.#skipped++;
  }

  /** The input frames the worker holds, as it said when its loop stopped. */
  set openFrames(open: number) {
    this.#openFrames = open;
  }

  stats(now: {
    backend: RuntimeBackendName;
    fallbacks: readonly Fallback[];
    restarts: number;
    path: VideoPath | null;
    compositor: 'webgl2' | 'canvas2d' | null;
    threads: ThreadChoice;
  }): VideoStats {
    this.#trim(performance.now());
    return {
      fps: this.#shown.length,
      latency: { p50: quantile(this.#latencies, 0.5), p95: quantile(this.#latencies, 0.95) },
      maskAge: { p50: quantile(this.#maskAges, 0.5), p95: quantile(this.#maskAges, 0.95) },
      dropped: this.#dropped + this.#skipped,
      frames: this.#frames,
      reused: this.#reused,
      carried: this.#carried,
      masks: this.#masks,
      waitsForMask: this.#waitsForMask,
      openFrames: this.#openFrames,
      backend: now.backend,
      fallbacks: [...now.fallbacks],
      restarts: now.restarts,
      path: now.path,
      compositor: now.compositor,
      threads: now.threads,
      stages: Object.fromEntries(STAGES.map((k) => [k, quantile(this.#stages[k], 0.5)])) as unknown as VideoStages,
    };
  }

  #trim(now: number): void {
    while (this.#shown.length && this.#shown[0]! <= now - 1000) this.#shown.shift();
  }
}

/** The stages of `VideoStages`, in the order a frame goes through them. */
export const STAGES = [
  'copy',
  'prepare',
  'guide',
  'model',
  'run',
  'grid',
  'refine',
  'composite',
  'write',
] as const satisfies readonly (keyof VideoStages)[];

/** Keeps the last 120 samples. */
function keepLast(samples: number[], value: number): void {
  samples.push(value);
  if (samples.length > 120) samples.shift();
}

/** The `q` quantile of `samples` (0 where there are none). */
function quantile(samples: readonly number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : 0;
}

// How frames reach the frame loop: one small interface, one implementation per engine's way (see
// `PathKind`): `streams` (the page's track processor and generator), `track` (the track sent to a worker),
// `frames` (a <video> read on the page, each frame sent).
import type { Remote } from 'comlink';
import type { WorkerApi } from '../runtime/protocol.js';
import type { LoopEvent } from './loop-state.js';
import type { FrameReport, PathKind, VideoInput } from './protocol.js';
import type { VideoStatsRecorder } from './video-stats.js';

/**
 * One input track's way through the effect. The LoopSupervisor starts each loop on it (again, on the same
 * output, after a crash or a fallback) and decides what every failure does; the path only connects its
 * input to a loop and tells the supervisor what it sees on the page.
 */
export interface InputPath {
  /** Which path (`PUBLIC_PATH` names it as `VideoStats.path` does). */
  readonly kind: PathKind;
  /** The caller's track. */
  readonly track: MediaStreamTrack;
  /** The track with the effect, the same for the path's life (across restarts). */
  readonly output: MediaStreamTrack;
  /** Whether the output lives in the loop's worker, and so ends with that worker. */
  readonly outputInLoopWorker: boolean;
  /** What a new loop reads (made for each loop), and what goes to its worker with it. */
  connect(): { input: VideoInput; transfer: Transferable[] };
  /** Loop `generation` started in its worker. */
  started?(generation: number): void;
  /** Frees the output of the last loop (a new one writes it next); resolves once it is free. Left out where there is nothing to free. */
  detach?(): Promise<void>;
  /** Stops what the page runs for the loop and ends the output. */
  stop(): Promise<void>;
}

/** What a path has of the effect: its loop (the LoopSupervisor), and the counts it keeps on the page. */
export interface PathContext {
  readonly loop: PathLoop;
  readonly stats: Pick<VideoStatsRecorder, 'skipped' | 'openFrames'>;
}

/** What a path asks of the loop. */
export interface PathLoop {
  /** The current loop's number. */
  readonly generation: number;
  /** The frames path's way to the loop now. */
  frameLoop(): FrameLoop;
  /** A frame's report from loop `generation` (a replaced loop's are ignored). */
  report(generation: number, report: FrameReport): void;
  /** What happened on the page: the loop decides what it does. */
  tell(event: PageEvent): void;
  /** Stops the loop in the loop's own worker (the track path, whose output that worker holds); the frames it held then, or null. */
  stopTrackLoop(): Promise<number | null>;
}

/** What a path sees happen on the page. */
export type PageEvent = Extract<LoopEvent, { on: 'input-ended' | 'frame-call-failed' | 'page-failed' }>;

/** The frames path's way to the loop, as it was when a frame came. */
export interface FrameLoop {
  readonly generation: number;
  /** Whether the loop has started in its worker (it may be recovering meanwhile). */
  readonly started: boolean;
  /** Whether it takes frames now (started, and no recovery under way). */
  readonly accepting: boolean;
  /** A call to the loop's worker, settled by either worker's death too (comlink would wait for ever). */
  call<T>(use: (remote: Remote<WorkerApi>) => Promise<T>): Promise<T>;
  /** Whether the loop's own worker died (and was let go) since. */
  loopDied(): boolean;
}

/**
 * Calls `ended` when `track` ends, for the paths that do not read it on the page: an 'ended' event comes
 * only when the source ends it, so a stop() here is seen by polling. Returns the watch's stop.
 */
export function watchInput(track: MediaStreamTrack, ended: () => void): () => void {
  const watch = setInterval(() => {
    if (track.readyState === 'ended') ended();
  }, 250);
  track.addEventListener('ended', ended, { once: true });
  return () => {
    clearInterval(watch);
    track.removeEventListener('ended', ended);
  };
}

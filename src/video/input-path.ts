// How frames reach the frame loop: one small interface, one implementation per engine's way (see
// `PathKind`): `streams` (the page's track processor and generator), `track` (the track sent to a worker),
// `frames` (a <video> read on the page, each frame sent).
import type { LoopSupervisor } from './loop-supervisor.js';
import type { FrameReport, PathKind } from './protocol.js';

/** One input track's way through the effect. */
export interface InputPath {
  /** Which path (`PUBLIC_PATH` names it as `VideoStats.path` does). */
  readonly kind: PathKind;
  /** The track with the effect, the same for the path's life (across restarts). */
  readonly output: MediaStreamTrack;
  /** Starts the loop. */
  start(): void;
  /** Starts the loop again on a new model worker (after a crash or a fallback), on the same output. */
  restart(): Promise<void>;
  /** Stops what the page runs for the loop and ends the output. */
  stop(): Promise<void>;
}

/** What a path needs of the effect. */
export interface PathContext {
  readonly supervisor: LoopSupervisor;
  report(report: FrameReport): void;
  /** The effect's end: `error` where it stopped on one (a backend failure or a dead worker is recovered from first, unless `final`). */
  ended(error?: Error, final?: boolean): void;
  /** The loop stopped on `error` (the path has stopped): the app is told, unless the effect was closed. */
  failed(error: Error): void;
  /** The page skipped a camera frame (the frames path, two frames in flight). */
  skipped(): void;
  /** The input frames the loop's worker held when its loop stopped. */
  openFrames(open: number): void;
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

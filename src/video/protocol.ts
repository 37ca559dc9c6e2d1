// The live-video half of the segmentation worker's protocol: the frame loop runs in a worker of the
// segmentation worker's script (workers/segment-worker.ts), beside the model's or in it, so a frame goes
// from the camera to the model to the compositor with no hop through the page where the engine allows it.
import type { ModelSpec } from '../model/index.js';
import type { SerializedError } from '../runtime/error-transfer.js';
import type { Rgb } from './effect.js';

/** The effects `createVideoEffect` offers. */
export type VideoEffectName = 'none' | 'overlay' | 'blur' | 'color' | 'image' | 'cutout';

/**
 * Which way frames go:
 * - `worker`: the page does nothing per frame. Either the track itself goes to the loop's worker, which
 *   reads it with a MediaStreamTrackProcessor and writes a VideoTrackGenerator made there (the spec's
 *   way, Safari 18), or, in Chromium, the page's MediaStreamTrackProcessor and MediaStreamTrackGenerator
 *   hand their streams to the worker, which reads, segments, composites and writes every frame;
 * - `main-thread`: the page reads frames with requestVideoFrameCallback as a <video> shows them, the worker
 *   segments and composites each, and the page shows the result on a canvas whose captureStream() is the
 *   output (Firefox, which has no track processor, and engines whose workers have no track generator).
 */
export type VideoPath = 'worker' | 'main-thread';

/**
 * The three paths by how frames reach the loop's worker (each an InputPath, and the `kind` of its
 * VideoInput): `streams` (Chromium: the page's track processor's stream, written back to a relay into the
 * page's generator), `track` (Safari 18: the track itself, read and written in the worker) and `frames`
 * (every other engine: the page sends each frame a <video> shows). `VideoStats.path` names them as an app
 * sees them: `worker` for the first two, `main-thread` for `frames`.
 */
export type PathKind = VideoInput['kind'];

/** `VideoStats.path` of each path. */
export const PUBLIC_PATH = { streams: 'worker', track: 'worker', frames: 'main-thread' } as const satisfies Record<PathKind, VideoPath>;

/** The effect's settings as the worker takes them (the page decodes backgrounds first). */
export interface VideoSettings {
  effect: VideoEffectName;
  color: Rgb;
  /** The replacement image for `image` (a copy the worker owns). */
  image: ImageBitmap | null;
  /** σ of the background blur as a multiple of the default (longest side / 64). */
  blur: number;
  /** 0–1: how much of the past a still part of the picture keeps each frame. */
  smoothing: number;
  /** 0–100, as segment()'s. */
  confidence: number;
  /** Send each frame's class ids back (onMask is set). */
  masks: boolean;
  compositor: 'auto' | 'webgl2' | 'canvas2d';
  /**
   * false: each frame is shown at once on the newest masks, and the model takes a frame whenever it is
   * free; 'auto': frames wait while the model and this loop keep pace with the camera (see MaskPace).
   */
  waitForMask: boolean | 'auto';
}

/** What a loop reads, by path (see `PathKind`). */
export type VideoInput =
  | {
      kind: 'streams';
      readable: ReadableStream<VideoFrame>;
      /** Where the page relays frames to its track generator (kept on the page, so a new worker can take over the same output track). */
      writable: WritableStream<VideoFrame>;
      /** The input's frame rate, where the track says it: frames the track processor discarded are counted from the timestamps' gaps. */
      frameRate?: number;
    }
  | {
      kind: 'track';
      /** The page's copy of the input track (transferred): this worker reads it. */
      track: MediaStreamTrack;
      /** Which of this worker's generators (`videoOutput`) the loop writes: the output that process() returned. */
      output: number;
      frameRate?: number;
    }
  | {
      kind: 'frames';
      /** The input's frame rate, where the track says it (the camera's pace, for waitForMask 'auto'). */
      frameRate?: number;
    };

export interface VideoStartRequest {
  input: VideoInput;
  settings: VideoSettings;
  /**
   * The model of another worker, served on `port` (`videoServeModel`): this worker then runs the frame
   * loop alone, and the next frame is at the model while this one is composited. Absent: the model of
   * this worker.
   */
  model?: { spec: ModelSpec; port: MessagePort };
}

export interface VideoStarted {
  compositor: 'webgl2' | 'canvas2d';
}

/** Each frame's mask, at the network's output resolution. */
export interface VideoMask {
  /** One class id per cell, row-major, at the network's output resolution. */
  classIds: Uint8Array;
  /** The mask's width, in cells (the network output's, not the frame's). */
  width: number;
  /** The mask's height, in cells. */
  height: number;
  /**
   * The timestamp of the frame the mask was made from, in VideoFrame.timestamp's units (µs): on the
   * `worker` path that frame's `VideoFrame.timestamp` (where the track gives none, as WebKit's track
   * processor does not, the time the loop read the frame, on its worker's clock); on the `main-thread` path
   * its media time as the page's <video> showed it (requestVideoFrameCallback's `mediaTime`, else, or where
   * that is 0 as in WebKitGTK, `currentTime`), on the clock of that element (Firefox's starts at 0 with the
   * first frame shown).
   */
  timestamp: number;
}

/** What the worker says after each frame it wrote (or dropped). */
export interface FrameReport {
  /** Frame in → frame out, in ms; absent for a dropped frame. */
  latency?: number;
  /** Frames dropped since the start. */
  dropped: number;
  mask?: VideoMask;
  /** Input frames the worker holds open after this frame was closed (the next one may be at the model already). */
  openFrames?: number;
  /** The model failed on this frame and the last good mask was used. */
  reused?: boolean;
  /** The model was busy with a newer frame: this one was shown on the masks of the frame before it. */
  carried?: boolean;
  /** This frame showed masks that no frame before it showed (a model run's result). */
  fresh?: boolean;
  /** Frames wait for their own mask now (with waitForMask 'auto', it follows MaskPace). */
  waiting: boolean;
  /** Why the model failed on this frame (with `reused`). */
  failure?: SerializedError;
  /** How much older than this frame the frame its masks were made from is, ms (0: its own masks). */
  maskAge?: number;
  /** Where this frame's time went, ms; the model's stages only on a frame that showed fresh masks. */
  stages?: Partial<VideoStages>;
}

/**
 * Where a frame's time goes in the workers, ms (`VideoStats.stages`: medians over the last 120 frames
 * that had the stage). `copy`: the camera frame into a copy of its own; `prepare`: the network input
 * (drawn and read back); `guide`: the small frame that refinement follows; `model`: the round trip to the
 * model, of which the model's worker spends `run` in the network and `grid` turning its output into class
 * ids and probability; `refine`: temporal smoothing and edge refinement, in the frame loop's thread once
 * the model has the next frame; `composite`: drawing the effect; `write`: handing the frame to the output
 * track.
 */
export interface VideoStages {
  /** The camera frame drawn into an RGB copy of its own (and closed). */
  copy: number;
  /** The network input drawn from the frame and read back as the tensor. */
  prepare: number;
  /** The frame drawn at the coverage's size, which smoothing and refinement follow. */
  guide: number;
  /** The round trip to the model's worker (`run` and `grid` in it). */
  model: number;
  /** The network, in the model's worker. */
  run: number;
  /** The network's output to class ids and the subject's probability, in the model's worker. */
  grid: number;
  /** Temporal smoothing and edge refinement, in the frame loop's worker once the model has the next frame. */
  refine: number;
  /** The effect drawn. */
  composite: number;
  /** The frame handed to the output track. */
  write: number;
}

/** What the page knows of a frame it sends as a bitmap (the frames path). */
export interface BitmapFrameMeta {
  /** The frame's timestamp in VideoFrame.timestamp's units (µs): the video's media time of the frame. */
  timestamp: number;
  /** The camera's frames the page skipped since the last one it sent (two were in flight). */
  skipped: number;
}

/** Called by the worker (comlink proxies). */
export interface VideoEvents {
  frame(report: FrameReport): void;
  /** The input ended (or the loop failed: `error`), and the output was ended. */
  ended(error?: SerializedError): void;
}

export interface VideoWorkerApi {
  videoStart(request: VideoStartRequest, events: VideoEvents): Promise<VideoStarted>;
  /**
   * A track generator made in this worker, for the track path's input: its id and its track (transferred to the
   * page), or null where the worker has no MediaStreamTrackProcessor and VideoTrackGenerator. The
   * videoStop() after a loop that wrote it ends it.
   */
  videoOutput(): Promise<{ id: number; track: MediaStreamTrack } | null>;
  /** Serves this worker's model on `port` to a frame loop in another worker (`VideoStartRequest.model`). */
  videoServeModel(port: MessagePort): Promise<void>;
  /**
   * The frames path: one frame in (a bitmap, which the worker closes, or its pixels, from which the
   * worker makes its own bitmap), the composited frame out; null where it was not shown (the loop stopped or failed).
   */
  videoFrame(frame: ImageBitmap | ImageData, meta: BitmapFrameMeta): Promise<{ bitmap: ImageBitmap; report: FrameReport } | null>;
  videoUpdate(settings: VideoSettings): Promise<void>;
  /** Stops the loop, ends the output (and this worker's generator), frees the compositor; resolves when nothing runs, with the input frames still open (0). */
  videoStop(): Promise<number>;
}

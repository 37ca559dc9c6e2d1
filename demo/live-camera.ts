// Live mode: segments each new camera frame once and presents it with its own mask, counting frames/s.
import type { RawSegmentation } from 'edgeseg';

export interface LiveOptions {
  video: HTMLVideoElement;
  /** Segments a frame; the frame is the callee's (it is transferred to the worker). */
  segment: (frame: VideoFrame) => Promise<RawSegmentation>;
  /** Shows a frame with the mask computed from it; the frame is closed after this returns. */
  present: (frame: VideoFrame, raw: RawSegmentation) => void;
  /** Frames presented in the last second, after each frame. */
  onFrame: (fps: number) => void;
}

export interface LiveSession {
  stop(): void;
  /** Settles when the loop has ended: after stop(), or rejected with the error that ended it. */
  readonly done: Promise<void>;
}

/**
 * The frame that is segmented is the frame that is shown (a clone of it is kept while the worker runs),
 * so the mask never lags the picture, however long the model takes. Two frames are in flight: while the
 * worker runs the model on one, this thread composites the one before (on 2 cores, the worker and the
 * page each keep a core busy instead of taking turns); the segmenter runs them in order, so frames are
 * shown in order. A camera frame that comes while both are busy waits; newer ones replace it.
 */
export function startLive(options: LiveOptions): LiveSession {
  const { video } = options;
  let stopped = false;
  let fresh = false;
  const waiting: Array<() => void> = [];
  const onVideoFrame = () => {
    if (stopped) return;
    fresh = true;
    waiting.shift()?.();
    video.requestVideoFrameCallback(onVideoFrame);
  };
  video.requestVideoFrameCallback(onVideoFrame);
  const presented: number[] = [];

  const lane = async () => {
    while (!stopped) {
      while (!fresh && !stopped) await new Promise<void>((resolve) => waiting.push(resolve));
      if (stopped) break;
      fresh = false;
      const frame = new VideoFrame(video);
      const shown = frame.clone();
      try {
        const raw = await options.segment(frame);
        if (stopped) break;
        options.present(shown, raw);
      } finally {
        shown.close();
      }
      const now = performance.now();
      presented.push(now);
      while (presented[0]! <= now - 1000) presented.shift();
      options.onFrame(presented.length);
    }
  };
  const done = Promise.all([lane(), lane()]).then(() => undefined);
  return {
    stop() {
      stopped = true;
      for (const wake of waiting.splice(0)) wake();
    },
    done,
  };
}

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
 * so the mask never lags the picture by a frame, however long the model takes. A frame the camera gives
 * while the worker is busy waits; frames newer than that one are dropped rather than queued, so latency
 * stays one frame at most.
 */
export function startLive(options: LiveOptions): LiveSession {
  const { video } = options;
  let stopped = false;
  let fresh = false;
  let wake: (() => void) | null = null;
  const onVideoFrame = () => {
    if (stopped) return;
    fresh = true;
    wake?.();
    video.requestVideoFrameCallback(onVideoFrame);
  };
  video.requestVideoFrameCallback(onVideoFrame);
  const presented: number[] = [];

  const loop = async () => {
    while (!stopped) {
      if (!fresh) await new Promise<void>((resolve) => (wake = resolve));
      wake = null;
      fresh = false;
      if (stopped) break;
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
  const done = loop();
  return {
    stop() {
      stopped = true;
      wake?.();
    },
    done,
  };
}

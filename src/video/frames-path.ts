// The frames path (Firefox, and engines whose workers have no track generator; `stats.path` 'main-thread'):
// the page reads frames as a hidden <video> shows them (requestVideoFrameCallback), sends each to the loop's
// worker as a bitmap (its pixels in WebKit) stamped with its media time, and shows the composited frames on
// a canvas whose captureStream() is the output.
import { transfer } from 'comlink';
import { watchInput, type InputPath, type PathContext } from './input-path.js';
import type { VideoInput } from './protocol.js';

export class FramesPath implements InputPath {
  readonly kind = 'frames';
  readonly track: MediaStreamTrack;
  /** The capture of the page's canvas, where it shows the frames that come back. */
  readonly output: MediaStreamTrack;
  readonly outputInLoopWorker = false;
  readonly #context: PathContext;
  readonly #video: HTMLVideoElement;
  readonly #canvas: HTMLCanvasElement;
  readonly #shown: ImageBitmapRenderingContext;
  #stopped = false;
  #unwatch: (() => void) | null = null;
  #handle = 0;
  #playing = false;
  #inFlight = 0;
  #sent = 0;
  #shownSequence = 0;
  /** Where the page reads a frame's pixels, in engines that send pixels (see #frameOf). */
  #pixels: CanvasRenderingContext2D | null = null;
  /**
   * The camera's frames not sent since the last one sent (two were in flight): the worker's pace counts
   * them, so that it sees the camera's frame rate, not the rate frames were sent at.
   */
  #skipped = 0;

  constructor(track: MediaStreamTrack, context: PathContext) {
    this.track = track;
    this.#context = context;
    const video = (this.#video = document.createElement('video'));
    video.muted = true;
    video.playsInline = true;
    video.srcObject = new MediaStream([track]);
    const canvas = (this.#canvas = document.createElement('canvas'));
    const settings = track.getSettings();
    [canvas.width, canvas.height] = [settings.width ?? 640, settings.height ?? 480];
    this.#shown = canvas.getContext('bitmaprenderer')!;
    // A frame each time the canvas changes; in WebKit at most the camera's frame rate (or 60 a second):
    // WebKitGTK's capture of a canvas with no frame rate gave a <video> or any other sink its first frame only.
    const stream = WEBKIT ? canvas.captureStream(settings.frameRate || 60) : canvas.captureStream();
    this.output = stream.getVideoTracks()[0]!;
  }

  /** The loop takes the frames the page sends it; the page watches the input. */
  connect(): { input: VideoInput; transfer: Transferable[] } {
    this.#unwatch ??= watchInput(this.track, () => this.#context.loop.tell({ on: 'input-ended' }));
    const { frameRate } = this.track.getSettings();
    return { input: { kind: 'frames', ...(frameRate ? { frameRate } : {}) }, transfer: [] };
  }

  /** The first loop started: the <video> plays, and its frames go to the loop (a play() refused ends the effect). */
  started(generation: number): void {
    if (this.#playing) return;
    this.#playing = true;
    this.#handle = this.#video.requestVideoFrameCallback(this.#onFrame);
    this.#video.play().catch((error: unknown) => this.#context.loop.tell({ on: 'page-failed', generation, error: error as Error }));
  }

  stop(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    this.#stopped = true;
    this.#unwatch?.();
    this.#video.cancelVideoFrameCallback(this.#handle);
    this.#video.pause();
    this.#video.srcObject = null;
    this.output.stop();
    return Promise.resolve();
  }

  /**
   * Two frames in flight: the next one's input is drawn while the model runs on this one. Results come
   * back in order; one older than the last shown (a replaced loop's) is dropped.
   */
  readonly #onFrame = (_: number, metadata?: VideoFrameCallbackMetadata): void => {
    if (this.#stopped) return;
    const video = this.#video;
    const { loop: supervisor, stats } = this.#context;
    this.#handle = video.requestVideoFrameCallback(this.#onFrame);
    const loop = supervisor.frameLoop();
    if (this.#inFlight >= 2 || !loop.accepting) {
      stats.skipped();
      this.#skipped = this.#inFlight >= 2 && loop.started ? this.#skipped + 1 : 0;
      return;
    }
    // The frame's own timestamp, in VideoFrame.timestamp's units (µs): its media time. WebKitGTK's <video>
    // of a track gives every frame a mediaTime of 0 while its currentTime runs: a 0 is taken as none.
    const timestamp = Math.round((metadata?.mediaTime || video.currentTime) * 1e6);
    const meta = { timestamp, skipped: this.#skipped };
    this.#skipped = 0;
    this.#inFlight++;
    const { generation } = loop;
    const sequence = ++this.#sent;
    void (async () => {
      try {
        const frame = await this.#frameOf(video);
        const result = await loop.call((remote) =>
          remote.videoFrame(transfer(frame, [frame instanceof ImageData ? frame.data.buffer : frame]), meta),
        );
        // Not shown (the worker's loop stopped, or failed on a frame before it, which says so itself).
        if (!result) return;
        const { bitmap, report } = result;
        if (this.#stopped || generation !== supervisor.generation || sequence < this.#shownSequence) bitmap.close();
        else {
          this.#shownSequence = sequence;
          const canvas = this.#canvas;
          if (canvas.width !== bitmap.width || canvas.height !== bitmap.height)
            [canvas.width, canvas.height] = [bitmap.width, bitmap.height];
          this.#shown.transferFromImageBitmap(bitmap);
          supervisor.report(generation, report);
        }
      } catch (error) {
        supervisor.tell({ on: 'frame-call-failed', generation, error: error as Error, loopDied: loop.loopDied() });
      } finally {
        this.#inFlight--;
      }
    })();
  };

  /**
   * The frame the <video> shows, for the worker: a bitmap (not a VideoFrame: WebKit's worker canvases drew
   * a VideoFrame made from a <video> as nothing), or in WebKit its pixels. WebKitGTK keeps the bitmap of a
   * <video> frame on the page's GPU context, and a worker that draws it works in that context's resource
   * cache from its own thread while the page works in it too: the web process crashed on a failed check in
   * that cache (CONTRIBUTING.md, "A browser that crashes"). From pixels, the worker makes its own bitmap.
   */
  async #frameOf(video: HTMLVideoElement): Promise<ImageBitmap | ImageData> {
    if (!WEBKIT) return createImageBitmap(video);
    const [width, height] = [video.videoWidth, video.videoHeight];
    const ctx = (this.#pixels ??= document.createElement('canvas').getContext('2d', { willReadFrequently: true })!);
    if (ctx.canvas.width !== width || ctx.canvas.height !== height) [ctx.canvas.width, ctx.canvas.height] = [width, height];
    ctx.drawImage(video, 0, 0, width, height);
    return ctx.getImageData(0, 0, width, height);
  }
}

/**
 * WebKit (Safari, WebKitGTK, WPE, every iOS browser): its page sends frames as pixels (#frameOf), and
 * captures the output canvas at a frame rate (the constructor).
 */
const WEBKIT =
  typeof navigator !== 'undefined' &&
  /AppleWebKit/.test(navigator.userAgent) &&
  !/Chrome\/|Chromium\/|Firefox\/|Edg\//.test(navigator.userAgent);

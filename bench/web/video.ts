// The in-browser half of the video bench: the blur on the page's fake camera, edgeseg's createVideoEffect
// against the same blur built as a LiteRT.js user builds it on the main thread. bench/run/video.ts drives it.
import { createVideoEffect } from 'edgeseg';
import { liteRtRunner } from '../../models/people/parity/runtimes.js';
import { nhwcFromRgba } from '../../models/people/parity/tensors.js';

declare const __LITERT_WASM__: string;

export interface VideoCase {
  /** edgeseg's people model folder, and the original .tflite with its input size. */
  model: string;
  tflite: string;
  height: number;
  width: number;
  threads: number;
  seconds: number;
  /** Seconds run before measuring (the model's first runs, the compositor's set-up). */
  warmup: number;
  /** The frame rate asked of the fake camera (the .y4m gives the same). */
  fps: number;
  /** edgeseg: createVideoEffect's `waitForMask`. */
  waitForMask?: boolean | 'auto';
  /** edgeseg: createVideoEffect's `numThreads` (absent: the default the effect picks). */
  edgesegThreads?: number;
  /** edgeseg: createVideoEffect's `compositor` (absent: `'auto'`). */
  compositor?: 'auto' | 'webgl2' | 'canvas2d';
}

export interface VideoResult {
  width: number;
  height: number;
  /** Output frames per second over the measured seconds. */
  fps: number;
  /** New masks the output showed per second (the model's runs that reached it; the peer's: one a frame). */
  maskFps: number;
  latency: { p50: number; p95: number };
  /** How much older than the frame shown the frame its mask came from, ms (the peer: 0, each frame has its own). */
  maskAge: { p50: number; p95: number };
  /** edgeseg: where a frame's time goes in the workers (`stats.stages`, medians, ms). */
  stages?: Record<string, number>;
  /** The page's own per-frame work, ms per output frame. */
  mainMsPerFrame: number;
  /** Long tasks (over 50 ms) on the page, ms per output frame. */
  longTaskMsPerFrame: number;
  frames: number;
  dropped: number;
  /** edgeseg: frames shown on the masks of the frame before them (the model was busy). */
  carried?: number;
  /** edgeseg: whether frames waited for their own mask at the end (`stats.waitsForMask`). */
  waitsForMask?: boolean;
  /** edgeseg: the share of the measured time frames waited for their own mask, and how often that changed (`stats.waitsForMask`, read every 50 ms). */
  waitedShare?: number;
  waitChanges?: number;
  path?: string | null;
  compositor?: string | null;
  /** edgeseg: the model's WASM threads and why (`stats.threads`); the peer: the threads LiteRT.js was given. */
  threads?: { numThreads: number; source: string; reason: string };
}

const now = () => performance.now();
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Every 'message' listener the page runs (comlink's, which is all edgeseg does per frame on the worker
// path besides the browser's own stream relay) is timed, so that its main-thread work can be summed.
let listenerMs = 0;
// eslint-disable-next-line @typescript-eslint/unbound-method -- called with its target below
const add = EventTarget.prototype.addEventListener;
// eslint-disable-next-line @typescript-eslint/unbound-method -- called with its target below
const remove = EventTarget.prototype.removeEventListener;
// comlink adds and removes a listener per call: the timed one must be the one removed.
const wrapped = new WeakMap<object, EventListener>();
EventTarget.prototype.addEventListener = function (
  this: EventTarget,
  type: string,
  listener: EventListenerOrEventListenerObject | null,
  options?: boolean | AddEventListenerOptions,
) {
  if (type !== 'message' || typeof listener !== 'function') return add.call(this, type, listener, options);
  const timed =
    wrapped.get(listener) ??
    function (this: unknown, event: Event) {
      const t = now();
      try {
        return listener.call(this, event);
      } finally {
        listenerMs += now() - t;
      }
    };
  wrapped.set(listener, timed);
  return add.call(this, type, timed, options);
};
EventTarget.prototype.removeEventListener = function (
  this: EventTarget,
  type: string,
  listener: EventListenerOrEventListenerObject | null,
  options?: boolean | EventListenerOptions,
) {
  const timed = type === 'message' && listener ? wrapped.get(listener) : undefined;
  return remove.call(this, type, timed ?? listener, options);
};

let longTaskMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) longTaskMs += entry.duration;
}).observe({ type: 'longtask', buffered: false });

const camera = async (frameRate: number) => (await navigator.mediaDevices.getUserMedia({ video: { frameRate } })).getVideoTracks()[0]!;

function quantiles(samples: number[]): { p50: number; p95: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => (s.length ? s[Math.min(s.length - 1, Math.floor(q * s.length))]! : 0);
  return { p50: at(0.5), p95: at(0.95) };
}

/** One reading of the long call. */
export interface SoakSample {
  /** Seconds since the effect started. */
  t: number;
  /** The page's and its workers' memory (measureUserAgentSpecificMemory), bytes. */
  bytes: number;
  frames: number;
  dropped: number;
  openFrames: number;
  fps: number;
}

async function memoryBytes(): Promise<number> {
  const measure = (performance as Performance & { measureUserAgentSpecificMemory?: () => Promise<{ bytes: number }> })
    .measureUserAgentSpecificMemory;
  return measure ? (await measure.call(performance)).bytes : NaN;
}

const api = {
  /**
   * A long call: createVideoEffect's blur on the fake camera at 30 frames/s for `minutes`, the output played
   * in a <video>; memory and the counters read every `every` seconds, then after close() the frames the
   * worker still holds.
   */
  async soak(
    c: VideoCase & { minutes: number; every: number },
  ): Promise<{ samples: SoakSample[]; openAfterClose: number; outputEnded: boolean }> {
    const fx = await createVideoEffect({ effect: 'blur', model: c.model, backends: ['wasm'], numThreads: c.threads });
    const track = await camera(30);
    const output = fx.process(track);
    const video = document.createElement('video');
    video.muted = true;
    video.srcObject = new MediaStream([output]);
    await video.play();
    const t0 = now();
    const samples: SoakSample[] = [];
    while (now() - t0 < c.minutes * 60_000) {
      await wait(c.every * 1000);
      const s = fx.stats;
      const t = (now() - t0) / 1000;
      const bytes = await memoryBytes();
      samples.push({ t, bytes, frames: s.frames, dropped: s.dropped, openFrames: s.openFrames, fps: s.fps });
    }
    video.srcObject = null;
    track.stop();
    await fx.close();
    return { samples, openAfterClose: fx.stats.openFrames, outputEnded: output.readyState === 'ended' };
  },

  /** edgeseg: createVideoEffect's blur on the camera track, the output track played in a <video>. */
  async edgeseg(c: VideoCase): Promise<VideoResult> {
    const fx = await createVideoEffect({
      effect: 'blur',
      model: c.model,
      backends: ['wasm'],
      ...(c.edgesegThreads === undefined ? {} : { numThreads: c.edgesegThreads }),
      waitForMask: c.waitForMask,
      compositor: c.compositor,
    });
    const track = await camera(c.fps);
    const { width = 0, height = 0 } = track.getSettings();
    const output = fx.process(track);
    const video = document.createElement('video');
    video.muted = true;
    video.srcObject = new MediaStream([output]);
    await video.play();
    await wait(c.warmup * 1000);
    const [masks0, frames0, dropped0, carried0, listener0, long0, t0] = [
      fx.stats.masks,
      fx.stats.frames,
      fx.stats.dropped,
      fx.stats.carried,
      listenerMs,
      longTaskMs,
      now(),
    ];
    let [reads, waited, changes, last] = [0, 0, 0, fx.stats.waitsForMask];
    while (now() - t0 < c.seconds * 1000) {
      await wait(50);
      const waits = fx.stats.waitsForMask;
      [reads, waited, changes, last] = [reads + 1, waited + (waits ? 1 : 0), changes + (waits === last ? 0 : 1), waits];
    }
    const stats = fx.stats;
    const seconds = (now() - t0) / 1000;
    const frames = stats.frames - frames0;
    const result: VideoResult = {
      width,
      height,
      fps: frames / seconds,
      maskFps: (stats.masks - masks0) / seconds,
      latency: stats.latency,
      maskAge: stats.maskAge,
      stages: { ...stats.stages },
      mainMsPerFrame: (listenerMs - listener0) / Math.max(1, frames),
      longTaskMsPerFrame: (longTaskMs - long0) / Math.max(1, frames),
      frames,
      dropped: stats.dropped - dropped0,
      carried: stats.carried - carried0,
      waitsForMask: stats.waitsForMask,
      waitedShare: waited / Math.max(1, reads),
      waitChanges: changes,
      path: stats.path,
      compositor: stats.compositor,
      threads: { numThreads: stats.threads.numThreads, source: stats.threads.source, reason: stats.threads.reason },
    };
    video.srcObject = null;
    track.stop();
    await fx.close();
    return result;
  },

  /**
   * The peer, as a LiteRT.js user builds the blur: on the page, each frame the <video> shows is drawn
   * into the network's size on a canvas, run with LiteRT.js (XNNPACK) on the original .tflite (which ends
   * in its own sigmoid), the probabilities written as a mask's alpha, and composited on a canvas: the frame
   * blurred with the canvas `filter`, the person (the frame masked by the upscaled mask) drawn over it.
   */
  async peer(c: VideoCase): Promise<VideoResult> {
    const run = await liteRtRunner(c.tflite, __LITERT_WASM__, c.height, c.width, c.threads);
    const track = await camera(c.fps);
    const { width = 640, height = 480 } = track.getSettings();
    const video = document.createElement('video');
    video.muted = true;
    video.srcObject = new MediaStream([track]);
    await video.play();
    const small = new OffscreenCanvas(c.width, c.height).getContext('2d', { willReadFrequently: true })!;
    const maskCtx = new OffscreenCanvas(c.width, c.height).getContext('2d')!;
    const mask = new ImageData(c.width, c.height);
    const person = new OffscreenCanvas(width, height).getContext('2d')!;
    const canvas = document.createElement('canvas');
    [canvas.width, canvas.height] = [width, height];
    const out = canvas.getContext('2d')!;
    canvas.captureStream();
    const blur = Math.max(width, height) / 64;
    let [frames, dropped, busyMs, busy, stopped] = [0, 0, 0, false, false];
    const latencies: number[] = [];
    const onFrame = () => {
      if (stopped) return;
      video.requestVideoFrameCallback(onFrame);
      if (busy) {
        dropped++;
        return;
      }
      busy = true;
      const t0 = now();
      void (async () => {
        small.drawImage(video, 0, 0, c.width, c.height);
        const input = nhwcFromRgba(small.getImageData(0, 0, c.width, c.height).data, c.height, c.width);
        const probabilities = await run(input);
        const t1 = now();
        for (let p = 0; p < probabilities.length; p++) mask.data[4 * p + 3] = Math.round(probabilities[p]! * 255);
        maskCtx.putImageData(mask, 0, 0);
        out.filter = `blur(${blur}px)`;
        out.drawImage(video, 0, 0, width, height);
        out.filter = 'none';
        person.globalCompositeOperation = 'copy';
        person.drawImage(maskCtx.canvas, 0, 0, width, height);
        person.globalCompositeOperation = 'source-in';
        person.drawImage(video, 0, 0, width, height);
        out.drawImage(person.canvas, 0, 0);
        const t2 = now();
        // The run blocks this thread (LiteRT.js's Wasm runs here); its await is counted with the rest.
        busyMs += t2 - t0;
        void t1;
        latencies.push(t2 - t0);
        if (latencies.length > 120) latencies.shift();
        frames++;
        busy = false;
      })();
    };
    video.requestVideoFrameCallback(onFrame);
    await wait(c.warmup * 1000);
    const [frames0, dropped0, busy0, long0, t0] = [frames, dropped, busyMs, longTaskMs, now()];
    await wait(c.seconds * 1000);
    const seconds = (now() - t0) / 1000;
    const n = frames - frames0;
    const result: VideoResult = {
      width,
      height,
      fps: n / seconds,
      maskFps: n / seconds,
      latency: quantiles(latencies),
      maskAge: { p50: 0, p95: 0 },
      mainMsPerFrame: (busyMs - busy0) / Math.max(1, n),
      longTaskMsPerFrame: (longTaskMs - long0) / Math.max(1, n),
      frames: n,
      dropped: dropped - dropped0,
      threads: { numThreads: c.threads, source: 'option', reason: `LiteRT.js with ${c.threads} thread(s)` },
    };
    stopped = true;
    video.srcObject = null;
    track.stop();
    await run.release();
    return result;
  },
};

(window as unknown as { videoBench: typeof api }).videoBench = api;
(window as unknown as { videoBenchReady: boolean }).videoBenchReady = true;

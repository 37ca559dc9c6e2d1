// createVideoEffect in a real browser: frames made from a real photo (the subject moved a few pixels a
// frame over a still background, with camera noise) go through the effect; its output is held to each
// frame's exact mask, its flicker to the raw masks', and its errors, frames and close() are checked.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSegmenter, createVideoEffect, type Segmenter, type VideoEffect, type VideoEffectOptions } from '../../src/index.js';
import { injectFault } from '../../src/runtime/segmenter-internals.js';
import { crashLoopWorker } from '../../src/video/video-internals.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { canvasTrack, centreOf, expectedPath, isCanvasPicture, until, videoOf } from './video-helpers.js';

// Chromium's track generator and processor: the test writes the input frames itself and reads the output.
interface Generator extends MediaStreamTrack {
  writable: WritableStream<VideoFrame>;
}
const media = globalThis as unknown as {
  MediaStreamTrackGenerator?: new (init: { kind: 'video' }) => Generator;
  MediaStreamTrackProcessor?: new (init: { track: MediaStreamTrack }) => { readable: ReadableStream<VideoFrame> };
};
const HAS_GENERATOR = typeof media.MediaStreamTrackGenerator === 'function';
/** What a frame of the timestamp test's track shows: a person on its left or right half, or no one. */
type Shown = 'left' | 'right' | 'none';
/**
 * The frames of the timestamp test's track, seeded: each one's gap after the frame before (ms, uneven:
 * 110–400) and what it shows (never the same as the frame before), with no period.
 */
function frameSequence(): () => { gap: number; shown: Shown } {
  const uniform = seededRandom(2024);
  let last: Shown = 'none';
  return () => {
    const others = (['left', 'right', 'none'] as const).filter((shown) => shown !== last);
    last = others[uniform() < 0.5 ? 0 : 1]!;
    return { gap: 110 + Math.floor(uniform() * 291), shown: last };
  };
}
const IS_WEBKIT = /AppleWebKit/.test(navigator.userAgent) && !/Chrome/.test(navigator.userAgent);
const PATH = await expectedPath();
// Safari 18's path: the page has no generator, its workers have one.
const SPEC_PATH = !HAS_GENERATOR && PATH === 'worker';

/**
 * The output's picture is the colour effect's green at its centre (no person in the canvas track: all
 * background). Under heavy load, WebKitGTK's <video> of the Safari path's output showed the input's picture
 * now and then, after the loop changed (a new model worker, a change of waitForMask 'auto'), though every
 * frame the loop wrote was green when read back in its worker: a read without the effect is taken again,
 * from a new <video>, up to 4 times. An output that never shows the effect still fails.
 */
async function expectGreen(output: MediaStreamTrack): Promise<void> {
  let pixel = await centreOf(output);
  for (let i = 0; i < 4 && offGreen(pixel) >= 30; i++) {
    console.log(`the output read without the effect (${String(pixel)}): read again`);
    pixel = await centreOf(output);
  }
  expect(offGreen(pixel), String(pixel)).toBeLessThan(30);
}

/** How far an RGB pixel is from the colour effect's green (the sum of the channels' differences). */
const offGreen = ([r, g, b]: readonly number[]) => Math.abs(r!) + Math.abs(g! - 255) + Math.abs(b!);

const [W, H] = [640, 480];
const GREEN = [0, 255, 0] as const;
const FRAMES = 16;

/** A seeded normal sampler (camera noise the same on every run). */
function noise(seed: number): () => number {
  let s = seed >>> 0;
  const uniform = () => ((s = (s * 1664525 + 1013904223) >>> 0) + 0.5) / 2 ** 32;
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

interface Scene {
  /** The clean pictures (RGBA) and the noisy ones the effect and the exact path see. */
  clean: Uint8ClampedArray[];
  noisy: ImageData[];
}

/**
 * The person of grace_hopper.jpg (cut out with its exact mask) over a still background (another photo,
 * blurred), moved 2 px a frame to the right then back, with Gaussian noise of σ 3 levels on every channel.
 */
async function makeScene(seg: Segmenter): Promise<Scene> {
  const load = async (name: string) => createImageBitmap(await (await fetch(`/models/people/samples/images/${name}`)).blob());
  const [person, backdrop] = await Promise.all([load('grace_hopper.jpg'), load('astronaut.png')]);
  // The person at 480 px high, its exact mask as the layer's alpha.
  const ph = 440;
  const pw = Math.round((person.width * ph) / person.height);
  const layer = new OffscreenCanvas(pw, ph).getContext('2d', { willReadFrequently: true })!;
  layer.drawImage(person, 0, 0, pw, ph);
  const raw = await seg.segmentRaw(layer.getImageData(0, 0, pw, ph));
  const cut = layer.getImageData(0, 0, pw, ph);
  for (let i = 0; i < raw.classIds.length; i++) if (raw.classIds[i] === 0) cut.data[i * 4 + 3] = 0;
  layer.putImageData(cut, 0, 0);
  const ctx = new OffscreenCanvas(W, H).getContext('2d', { willReadFrequently: true })!;
  const gauss = noise(7);
  const scene: Scene = { clean: [], noisy: [] };
  for (let k = 0; k < FRAMES; k++) {
    const dx = 2 * (k < FRAMES / 2 ? k : FRAMES - k);
    ctx.filter = 'blur(6px)';
    ctx.drawImage(backdrop, 0, 0, W, H);
    ctx.filter = 'none';
    ctx.drawImage(layer.canvas, 120 + dx, H - ph);
    const image = ctx.getImageData(0, 0, W, H);
    scene.clean.push(image.data.slice());
    for (let i = 0; i < image.data.length; i++) if ((i & 3) !== 3) image.data[i] = image.data[i]! + 3 * gauss();
    scene.noisy.push(image);
  }
  return scene;
}

/** Subject (1) or background (0) of each output pixel of the colour effect: how far it is from green toward the input pixel. */
function decisions(out: Uint8ClampedArray, input: Uint8ClampedArray): Uint8Array {
  const result = new Uint8Array(W * H);
  for (let i = 0; i < W * H; i++) {
    let dot = 0;
    let norm = 0;
    for (let c = 0; c < 3; c++) {
      const f = input[i * 4 + c]! - GREEN[c]!;
      dot += (out[i * 4 + c]! - GREEN[c]!) * f;
      norm += f * f;
    }
    result[i] = norm > 0 && dot / norm >= 0.5 ? 1 : 0;
  }
  return result;
}

/** Runs the scene through `fx` one frame at a time (each output awaited, so none is dropped); each output as subject decisions. */
async function runScene(fx: VideoEffect, scene: Scene): Promise<{ masks: Uint8Array[]; written: VideoFrame[] }> {
  const generator = new media.MediaStreamTrackGenerator!({ kind: 'video' });
  const writer = generator.writable.getWriter();
  const output = fx.process(generator);
  const reader = new media.MediaStreamTrackProcessor!({ track: output }).readable.getReader();
  // The worker's loop reads once it has started (its compositor is known then): a frame written before
  // may be discarded by the track processor, and this one-frame-at-a-time loop would wait for it.
  await until(() => fx.stats.compositor !== null, 'the loop to start');
  const read = new OffscreenCanvas(W, H).getContext('2d', { willReadFrequently: true })!;
  const masks: Uint8Array[] = [];
  const written: VideoFrame[] = [];
  for (let k = 0; k < scene.noisy.length; k++) {
    const frame = new VideoFrame(await createImageBitmap(scene.noisy[k]!), { timestamp: (k + 1) * 33_333 });
    written.push(frame);
    await writer.write(frame);
    // A deadline, so that a frame that never comes says where it stopped instead of timing the test out.
    let timer = 0;
    const { value } = await Promise.race([
      reader.read(),
      new Promise<never>((_, reject) => {
        timer = window.setTimeout(() => reject(new Error(`no output for frame ${k}: ${JSON.stringify(fx.stats)}`)), 60_000);
      }),
    ]).finally(() => clearTimeout(timer));
    expect(value!.timestamp).toBe((k + 1) * 33_333);
    read.drawImage(value!, 0, 0);
    value!.close();
    masks.push(decisions(read.getImageData(0, 0, W, H).data, scene.noisy[k]!.data));
  }
  await writer.close();
  // The input ended: the output ends.
  expect((await reader.read()).done).toBe(true);
  return { masks, written };
}

/** Share of the pixels whose clean picture did not change where the decision changed, over consecutive frames. */
function flicker(masks: Uint8Array[], scene: Scene): number {
  let changed = 0;
  let counted = 0;
  for (let k = 1; k < masks.length; k++) {
    const [a, b] = [scene.clean[k - 1]!, scene.clean[k]!];
    for (let i = 0; i < W * H; i++) {
      const o = i * 4;
      if (a[o] !== b[o] || a[o + 1] !== b[o + 1] || a[o + 2] !== b[o + 2]) continue;
      counted++;
      if (masks[k - 1]![i] !== masks[k]![i]) changed++;
    }
  }
  return changed / counted;
}

const agreement = (a: Uint8Array, b: Uint8Array) => {
  let same = 0;
  for (let i = 0; i < a.length; i++) if (a[i] === b[i]) same++;
  return same / a.length;
};

// The tests below judge pacing and timing (frames against a model slowed to 150 ms a run, offsets from
// draws) on a machine shared with every other browser project: a stall of the machine (2 cores here) can
// push one run past a bound. A test that fails runs again, up to twice; a real fault fails all three.
const TIMED = { retry: 2 };

describe.runIf(HAS_GENERATOR)('createVideoEffect on frames made from a real photo (Chromium track generator)', TIMED, () => {
  let seg: Segmenter;
  let scene: Scene;
  let exact: Uint8Array[];
  beforeAll(async () => {
    seg = await createSegmenter({ model: '/models/people/general/', backends: ['wasm'] });
    scene = await makeScene(seg);
    exact = [];
    for (const image of scene.noisy) {
      const raw = await seg.segmentRaw(new ImageData(image.data.slice(), W, H));
      exact.push(raw.classIds.map((id) => (id === 0 ? 0 : 1)));
    }
  });
  afterAll(async () => {
    await seg?.dispose();
  });

  test('smoothed and refined: flicker at most half the raw masks’, agreement with each frame’s exact mask ≥ 98%, every frame closed', async () => {
    const fx = await createVideoEffect({ effect: 'color', background: '#00ff00', backends: ['wasm'] });
    try {
      const { masks, written } = await runScene(fx, scene);
      const rawFlicker = flicker(exact, scene);
      const ours = flicker(masks, scene);
      const agree = masks.map((m, k) => agreement(m, exact[k]!));
      console.log(`video: flicker ${ours.toFixed(5)} vs raw ${rawFlicker.toFixed(5)}; agreement min ${Math.min(...agree).toFixed(4)}`);
      expect(rawFlicker).toBeGreaterThan(0);
      expect(ours).toBeLessThanOrEqual(rawFlicker / 2);
      expect(Math.min(...agree)).toBeGreaterThanOrEqual(0.98);
      // Every frame: ours closed by the generator's stream, the worker's closed after each frame.
      expect(written.every((f) => f.format === null)).toBe(true);
      const stats = fx.stats;
      console.log(`video: latency p50 ${stats.latency.p50.toFixed(1)} ms, p95 ${stats.latency.p95.toFixed(1)} ms (${stats.compositor})`);
      expect(stats).toMatchObject({ path: 'worker', backend: 'wasm', dropped: 0, frames: FRAMES, openFrames: 0 });
      expect(stats.latency.p95).toBeGreaterThan(0);
    } finally {
      await fx.close();
    }
  });

  /**
   * The scene's frames into `fx` (the model slowed by 150 ms a run), by default two rounds a frame every
   * 40 ms (several come while the model runs), the output read back: each shown frame's index and its
   * subject decisions, and `stats.waitsForMask` at the end of each phase.
   */
  /**
   * A track generator into `fx` (its track saying `frameRate`, where given, as a camera's does), once the
   * loop has started; each output frame to `seen`, then closed. `reading` ends after the output does.
   */
  async function generatorInto(
    fx: VideoEffect,
    seen: (frame: VideoFrame) => void,
    frameRate?: number,
  ): Promise<{ writer: WritableStreamDefaultWriter<VideoFrame>; reading: Promise<void> }> {
    const generator = new media.MediaStreamTrackGenerator!({ kind: 'video' });
    if (frameRate) {
      const settings = generator.getSettings.bind(generator);
      generator.getSettings = () => ({ ...settings(), frameRate });
    }
    const writer = generator.writable.getWriter();
    const reader = new media.MediaStreamTrackProcessor!({ track: fx.process(generator) }).readable.getReader();
    await until(() => fx.stats.compositor !== null, 'the loop to start');
    const reading = (async () => {
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        seen(r.value);
        r.value.close();
      }
    })();
    return { writer, reading };
  }

  async function burst(
    fx: VideoEffect,
    phases = [{ frames: 2 * FRAMES, every: 40 }],
  ): Promise<{ shown: { k: number; mask: Uint8Array; sentAt: number; lag: number }[]; mostOpen: number; sent: number; waits: boolean[] }> {
    await injectFault(fx.segmenter, 'slow-runs');
    const read = new OffscreenCanvas(W, H).getContext('2d', { willReadFrequently: true })!;
    const shown: { k: number; mask: Uint8Array; sentAt: number; lag: number }[] = [];
    const sentAt: number[] = [];
    const { writer, reading } = await generatorInto(fx, (frame) => {
      const k = frame.timestamp / 33_333 - 1;
      const lag = performance.now() - sentAt[k]!;
      read.drawImage(frame, 0, 0);
      shown.push({ k, mask: decisions(read.getImageData(0, 0, W, H).data, scene.noisy[k % FRAMES]!.data), sentAt: sentAt[k]!, lag });
    });
    const bitmaps = await Promise.all(scene.noisy.map((image) => createImageBitmap(image)));
    let [sent, mostOpen] = [0, 0];
    const waits: boolean[] = [];
    for (const { frames, every } of phases) {
      for (let n = 0; n < frames; n++, sent++) {
        mostOpen = Math.max(mostOpen, fx.stats.openFrames);
        sentAt[sent] = performance.now();
        await writer.write(new VideoFrame(bitmaps[sent % FRAMES]!, { timestamp: (sent + 1) * 33_333 }));
        await new Promise((resolve) => setTimeout(resolve, every));
      }
      waits.push(fx.stats.waitsForMask);
    }
    // The input ends: the output ends after the frames in flight.
    await writer.close();
    await reading;
    return { shown, mostOpen, sent, waits };
  }

  const agreements = (shown: { k: number; mask: Uint8Array }[]) => shown.map(({ k, mask }) => agreement(mask, exact[k % FRAMES]!));

  // 'auto' is canvas 2D here (WebGL is SwiftShader's); WebGL2 forced, where the worker has the generator.
  for (const compositor of ['auto', ...(HAS_GENERATOR ? ['webgl2' as const] : [])] as const) {
    test(`frames faster than the model: those it did not take are shown on the masks before them, in order (compositor ${compositor})`, async () => {
      const fx = await createVideoEffect({ effect: 'color', background: '#00ff00', backends: ['wasm'], waitForMask: true, compositor });
      try {
        const { shown, mostOpen, sent, waits } = await burst(fx);
        const stats = fx.stats;
        console.log(`video burst (${stats.compositor}): ${stats.frames} shown (${stats.carried} carried), ${stats.dropped} dropped`);
        expect(stats.compositor).toBe(compositor === 'auto' ? 'canvas2d' : compositor);
        expect(waits).toEqual([true]);
        // Track processors discard the frames their reader did not take in time, uncounted (a generator's
        // track has no frame rate to count them from): the loop's, and ours, which reads each frame back.
        expect(shown.length).toBeGreaterThan(0);
        expect(shown.length).toBeLessThanOrEqual(stats.frames);
        expect(stats.carried).toBeGreaterThan(0);
        // Each model run (150 ms and more) took one frame. Of the frames the loop took while it ran, the newest
        // went to the model next and the one before it was carried: at most one carried frame per run. How
        // many the loop took is up to the machine's load (the track processor discards those it did not take
        // in time: under the full suite's load, once, about one frame per run of 430 ms, and 2 carried of 8).
        expect(stats.carried).toBeLessThanOrEqual(stats.masks);
        expect(stats.masks).toBe(stats.frames - stats.carried);
        expect(stats.frames + stats.dropped).toBeLessThanOrEqual(sent);
        // A camera lends few frames, and holding them holds back its next ones. With either compositor each
        // frame the loop keeps is closed as soon as it is copied (an RGB copy on the CPU for canvas 2D, on the
        // GPU for WebGL2): none is held between frames, nor after.
        expect(mostOpen).toBe(0);
        expect(stats.openFrames).toBe(0);
        // In order: each shown frame is newer than the one before it.
        expect(shown.every(({ k }, i) => i === 0 || k > shown[i - 1]!.k)).toBe(true);
        // A carried frame is shown on masks a few frames behind (the model takes 150 ms here, the subject
        // moves 2 px a frame): still ≥ 95% of its own exact mask.
        const agree = agreements(shown);
        console.log(`video burst: agreement min ${Math.min(...agree).toFixed(4)}`);
        expect(Math.min(...agree)).toBeGreaterThanOrEqual(0.95);
      } finally {
        await fx.close();
      }
    });
  }

  test('waitForMask: false: with the model slower than the frames, every frame is shown at once on the newest masks', async () => {
    const fx = await createVideoEffect({ effect: 'color', background: '#00ff00', backends: ['wasm'], waitForMask: false });
    const made: number[] = [];
    let firstMaskAt = Infinity;
    fx.onMask = ({ timestamp }) => {
      firstMaskAt = Math.min(firstMaskAt, performance.now());
      made.push(timestamp);
    };
    try {
      const { shown, mostOpen, sent, waits } = await burst(fx, [{ frames: 4 * FRAMES, every: 40 }]);
      expect(waits).toEqual([false]);
      const stats = fx.stats;
      // The frames sent once the first mask was made, each from the time it was sent to the time it was read
      // back: those before had no masks to be shown on and waited for the first run (150 ms and more, more
      // under load), by design.
      const lags = shown.filter(({ sentAt }) => sentAt > firstMaskAt).map(({ lag }) => lag);
      const p50 = lags.sort((a, b) => a - b)[Math.floor(lags.length / 2)]!;
      const late = lags.filter((lag) => lag >= 150).length;
      console.log(
        `video latest: ${stats.frames} shown, ${stats.masks} masks, ${stats.dropped} dropped, latency p50 ${stats.latency.p50.toFixed(1)} / p95 ${stats.latency.p95.toFixed(1)} ms; ${lags.length} shown after the first mask: p50 ${p50.toFixed(1)} ms, ${late} at 150 ms or more`,
      );
      // No frame waits for a run (150 ms and more): each is shown as it comes, on the masks the model made last.
      // Frames that waited would all be 150 ms late or more; a stall of the machine (another test's load, a
      // pause to collect garbage) may hold up a few that did not.
      expect(lags.length).toBeGreaterThanOrEqual(shown.length / 2);
      expect(p50).toBeLessThan(75);
      expect(late).toBeLessThanOrEqual(0.1 * lags.length);
      expect(stats.latency.p50).toBeLessThan(75);
      expect(stats.frames).toBeGreaterThanOrEqual(0.6 * sent);
      expect(shown.length).toBeGreaterThan(0);
      expect(shown.every(({ k }, i) => i === 0 || k > shown[i - 1]!.k)).toBe(true);
      // The model took a frame whenever it was free: fewer masks than frames, each sent to onMask once,
      // stamped with the frame it was made from, in order.
      expect(stats.masks).toBeGreaterThanOrEqual(2);
      expect(stats.masks).toBeLessThan(stats.frames / 2);
      expect(made.length).toBe(stats.masks);
      expect(made.every((t, i) => i === 0 || t > made[i - 1]!)).toBe(true);
      // One frame being shown, one at the model; none after.
      expect(mostOpen).toBeLessThanOrEqual(2);
      expect(stats.openFrames).toBe(0);
      const agree = agreements(shown);
      console.log(`video latest: agreement min ${Math.min(...agree).toFixed(4)}`);
      expect(Math.min(...agree)).toBeGreaterThanOrEqual(0.9);
    } finally {
      await fx.close();
    }
  });

  test("waitForMask 'auto' (the default): frames stop waiting while the model is slower than them, and wait again once it keeps pace", async () => {
    const fx = await createVideoEffect({ effect: 'color', background: '#00ff00', backends: ['wasm'] });
    try {
      expect(fx.stats.waitsForMask).toBe(true);
      // A frame every 40 ms to a model that takes 150 ms and more, then a frame every 400 ms.
      const { shown, waits } = await burst(fx, [
        { frames: 48, every: 40 },
        { frames: 20, every: 400 },
      ]);
      const stats = fx.stats;
      console.log(
        `video auto: ${stats.frames} shown (${stats.carried} carried), ${stats.masks} masks, waits after each phase ${waits.join(', ')}`,
      );
      expect(waits).toEqual([false, true]);
      // In order, every frame closed, and the last frames on their own masks again (a frame shown on an
      // earlier one, 400 ms before, would not agree so well with its own).
      expect(shown.every(({ k }, i) => i === 0 || k > shown[i - 1]!.k)).toBe(true);
      expect(stats.openFrames).toBe(0);
      expect(Math.min(...agreements(shown.slice(-3)))).toBeGreaterThanOrEqual(0.98);
    } finally {
      await fx.close();
    }
  });

  test("waitForMask 'auto' with a camera slower than its frame rate says (low light): frames find the camera slower and wait for their own mask again, none counted dropped", async () => {
    const fx = await createVideoEffect({ effect: 'color', background: '#00ff00', backends: ['wasm'] });
    try {
      await injectFault(fx.segmenter, 'slow-runs');
      // The track says 60 frames/s, as a camera's driver does in low light while it gives far fewer.
      let shown = 0;
      const { writer, reading } = await generatorInto(fx, () => shown++, 60);
      // A frame every 400 ms, stamped with its capture time as a camera's are; each run takes 150 ms more
      // than the model's own, too slow for 60 frames/s and fast enough for 2.5.
      const bitmap = await createImageBitmap(scene.noisy[0]!);
      const waits: boolean[] = [];
      let back: { frames: number; masks: number; dropped: number } | null = null;
      for (let n = 0; n < 60 && !(back && shown >= back.frames + 8); n++) {
        await writer.write(new VideoFrame(bitmap, { timestamp: Math.round(performance.now() * 1000) }));
        await new Promise((resolve) => setTimeout(resolve, 400));
        const { waitsForMask, masks, dropped } = fx.stats;
        if (!back && waitsForMask && waits.includes(false)) back = { frames: shown, masks, dropped };
        waits.push(waitsForMask);
      }
      await writer.close();
      await reading;
      const stats = fx.stats;
      const runs = waits.map(Number).join('');
      console.log(`video slow camera: waits ${runs}; ${shown} shown on ${stats.masks} masks, ${stats.dropped} dropped`);
      // Judged on 60 frames/s, frames stop waiting; measured, the camera is slow enough to wait for, for good.
      expect(runs).toMatch(/^1+0+1+$/);
      expect(back).not.toBeNull();
      // From then on, each frame on its own mask; and none counted dropped (the loop waited for each).
      expect(shown - back!.frames).toBeGreaterThanOrEqual(8);
      expect(stats.masks - back!.masks).toBe(shown - back!.frames);
      expect(stats.dropped).toBe(back!.dropped);
      expect(stats.openFrames).toBe(0);
    } finally {
      await fx.close();
    }
  });

  test('the fast path (no smoothing) agrees with the exact path on ≥ 99% of pixels of every frame', async () => {
    const fx = await createVideoEffect({ effect: 'color', background: [0, 255, 0], smoothing: 0, backends: ['wasm'] });
    try {
      const { masks } = await runScene(fx, scene);
      const agree = masks.map((m, k) => agreement(m, exact[k]!));
      console.log(`video fast path: agreement min ${Math.min(...agree).toFixed(4)}`);
      expect(Math.min(...agree)).toBeGreaterThanOrEqual(0.99);
    } finally {
      await fx.close();
    }
  });

  test('a camera that changes size mid-call (640×480, then 320×240, then back): each frame comes out at its own size and timestamp with the effect, masks made at each size, no error, nothing held', async () => {
    const fx = await createVideoEffect({ effect: 'color', background: '#00ff00', backends: ['wasm'] });
    /** The masks: the timestamp of the frame each was made from, and whether it holds a class id per cell of its grid. */
    const made: { timestamp: number; whole: boolean }[] = [];
    fx.onMask = ({ width, height, timestamp, classIds }) => made.push({ timestamp, whole: classIds.length === width * height });
    const errors: unknown[] = [];
    fx.onError = (error) => errors.push(error);
    try {
      const out: { width: number; height: number; timestamp: number; centre: number[] }[] = [];
      const probe = new OffscreenCanvas(1, 1).getContext('2d', { willReadFrequently: true })!;
      const { writer, reading } = await generatorInto(fx, (frame) => {
        const [width, height] = [frame.displayWidth, frame.displayHeight];
        // A pixel of the background (right of the centre, in the top quarter): the effect's green.
        probe.drawImage(frame, width / 2 + 100 * (width / W), height / 4, 1, 1, 0, 0, 1, 1);
        out.push({ width, height, timestamp: frame.timestamp, centre: Array.from(probe.getImageData(0, 0, 1, 1).data.slice(0, 3)) });
      });
      const bitmaps = await Promise.all(scene.noisy.map((image) => createImageBitmap(image)));
      const phases = [
        [W, H],
        [W / 2, H / 2],
        [W, H],
      ] as const;
      /** The phase a frame (or the frame a mask was made from) was sent in, by its timestamp. */
      const phaseOf = (timestamp: number) => Math.floor((timestamp / 33_333 - 1) / FRAMES);
      let sent = 0;
      for (const [width, height] of phases) {
        const canvas = new OffscreenCanvas(width, height);
        const ctx = canvas.getContext('2d')!;
        for (let n = 0; n < FRAMES; n++, sent++) {
          ctx.drawImage(bitmaps[n]!, 0, 0, width, height);
          await writer.write(new VideoFrame(canvas, { timestamp: (sent + 1) * 33_333 }));
          await new Promise((resolve) => setTimeout(resolve, 60));
        }
      }
      await writer.close();
      await reading;
      const masks = made.map(({ timestamp }) => timestamp);
      console.log(`video size change: ${out.length} frames out of ${sent}, ${masks.length} masks`);
      // Checked here, not in onMask: an expect thrown there would reach the effect, not the test.
      expect(made.every(({ whole }) => whole)).toBe(true);
      // Each frame came out at its own size, in order, with its own timestamp: frames of each phase (half of
      // those after the first, whose start has the model's warm-up), and masks made from them (a mask is the
      // model's grid whatever the frame's size).
      for (const f of out) expect([f.width, f.height], String(f.timestamp)).toEqual([...phases[phaseOf(f.timestamp)]!]);
      expect(out.every((f, i) => i === 0 || f.timestamp > out[i - 1]!.timestamp)).toBe(true);
      for (let p = 0; p < phases.length; p++) {
        expect(out.filter((f) => phaseOf(f.timestamp) === p).length, `phase ${p}`).toBeGreaterThanOrEqual(p === 0 ? 1 : FRAMES / 2);
        expect(masks.filter((t) => phaseOf(t) === p).length, `phase ${p}`).toBeGreaterThan(0);
      }
      expect(masks.filter((t) => phaseOf(t) === 1).length).toBeGreaterThanOrEqual(FRAMES / 4);
      // The effect holds at each size: the background is the colour's green.
      for (const f of out) expect(offGreen(f.centre), String(f.centre)).toBeLessThan(60);
      expect(errors).toEqual([]);
      expect(fx.stats.openFrames).toBe(0);
    } finally {
      await fx.close();
    }
  });
});

// Frames wait for their own masks in the tests that check something else than the pace, so that no change
// of way (waitForMask 'auto', which follows the machine's load) comes in between; 'auto' has its own tests.
const WAITING = { waitForMask: true } as const;

/** The green colour effect on WASM (with `options`) on a live canvas track (`every`: see canvasTrack) through `body`; then no frame left open. */
async function onCanvasTrack(
  options: VideoEffectOptions,
  body: (fx: VideoEffect, live: ReturnType<typeof canvasTrack>) => Promise<void>,
  every?: number,
): Promise<void> {
  const fx = await createVideoEffect({ effect: 'color', background: '#00ff00', backends: ['wasm'], ...options });
  const live = canvasTrack(every);
  try {
    await body(fx, live);
  } finally {
    live.stop();
    await fx.close();
  }
  expect(fx.stats.openFrames).toBe(0);
}

// Four minutes a test: in CI, with every browser project at once on 2 cores, WebKitGTK's main-thread path
// took 20 s and more to show its first frames, and one test ran past the two-minute default.
describe('createVideoEffect in this engine: a canvas track in, the effect out; bad input; close()', { timeout: 240_000, ...TIMED }, () => {
  let fx: VideoEffect;
  beforeAll(async () => {
    fx = await createVideoEffect({ effect: 'color', background: '#00ff00', backends: ['wasm'], ...WAITING });
  });
  afterAll(async () => {
    await fx?.close();
  });

  test('refuses an ended track, a track that is not video, and a second process() while one runs, each with its code', async () => {
    const ended = canvasTrack();
    ended.stop();
    expect(() => fx.process(ended.track)).toThrow(expect.objectContaining({ code: 'TRACK_ENDED' }));
    const audio = new AudioContext().createMediaStreamDestination().stream.getAudioTracks()[0]!;
    expect(() => fx.process(audio)).toThrow(expect.objectContaining({ code: 'TRACK_NOT_VIDEO' }));
    expect(() => fx.process('camera' as unknown as MediaStreamTrack)).toThrow(expect.objectContaining({ code: 'TRACK_NOT_VIDEO' }));
    const live = canvasTrack();
    const output = fx.process(live.track);
    try {
      expect(() => fx.process(canvasTrack().track)).toThrow(expect.objectContaining({ code: 'VIDEO_BUSY' }));
      expect(output.kind).toBe('video');
      await until(() => fx.stats.frames >= 3, 'three output frames');
      // No person in the picture: all background, so the colour fills it.
      await expectGreen(output);
      expect(fx.stats.path).toBe(PATH);
      // The model fails on a frame (as a lost device would): the output keeps flowing on the last good mask, and stats say so.
      await injectFault(fx.segmenter, 'run');
      const before = fx.stats.frames;
      await until(() => fx.stats.reused >= 1 && fx.stats.frames >= before + 2, 'frames after a failed run');
      expect(output.readyState).toBe('live');
      // A background that does not decode (a PNG cut short), or is no image at all: update() rejects, with the
      // codes any image gets, and the effect before it stays.
      const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13];
      await expect(
        fx.update({ effect: 'image', background: new Blob([new Uint8Array(png)], { type: 'image/png' }) }),
      ).rejects.toMatchObject({
        code: 'IMAGE_DECODE_FAILED',
      });
      await expect(
        fx.update({ effect: 'image', background: new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' }) }),
      ).rejects.toMatchObject({
        code: 'IMAGE_FORMAT_UNSUPPORTED',
      });
      await expect(fx.update({ effect: 'sparkle' as never })).rejects.toMatchObject({ code: 'OPTION_INVALID' });
      const frames = fx.stats.frames;
      await until(() => fx.stats.frames >= frames + 2, 'frames after the failed update');
      // The failed run changed the loop: read as expectGreen reads (WebKitGTK's <video> of the Safari path).
      await expectGreen(output);
      // The input ends: the output ends.
      live.stop();
      await until(() => output.readyState === 'ended', 'the output to end');
    } finally {
      live.stop();
      // A retry after a failure here starts only once this track's output has ended (else VIDEO_BUSY).
      await until(() => output.readyState === 'ended', 'the output to end').catch(() => undefined);
    }
  });

  test("waitForMask: false on this engine's path: the effect on the newest masks, a failed run reported, the output flowing", async () => {
    await expect(createVideoEffect({ waitForMask: 'no' as never })).rejects.toMatchObject({ code: 'OPTION_INVALID' });
    await onCanvasTrack({ waitForMask: false }, async (latest, live) => {
      const output = latest.process(live.track);
      await until(() => latest.stats.frames >= 3 && latest.stats.masks >= 2, 'three output frames on two masks');
      expect(latest.stats.path).toBe(PATH);
      await expectGreen(output);
      // A failed run is told by a frame after it (the frame it was for was shown on the masks before).
      await injectFault(latest.segmenter, 'run');
      const before = latest.stats.frames;
      await until(() => latest.stats.reused >= 1 && latest.stats.frames >= before + 2, 'frames after a failed run');
      expect(output.readyState).toBe('live');
      await expectGreen(output);
    });
  });

  test("waitForMask 'auto' (the default) on this engine's path: with the model slower than the frames, they stop waiting and keep flowing on the newest masks", async () => {
    await onCanvasTrack({}, async (auto, live) => {
      auto.process(live.track);
      expect(auto.stats.waitsForMask).toBe(true);
      await until(() => auto.stats.frames >= 3, 'three output frames');
      // Each run now takes 150 ms more: several frames come while it runs.
      await injectFault(auto.segmenter, 'slow-runs');
      await until(
        () => !auto.stats.waitsForMask,
        () => `frames to stop waiting (stats: ${JSON.stringify(auto.stats)})`,
      );
      const [frames, masks] = [auto.stats.frames, auto.stats.masks];
      await until(() => auto.stats.frames >= frames + 8, 'frames after the change');
      const stats = auto.stats;
      console.log(
        `video auto (${stats.path}): ${stats.frames - frames} frames on ${stats.masks - masks} masks after frames stopped waiting`,
      );
      // Frames shown on the newest mask: more of them than masks, and none for a failed run.
      expect(stats.frames - frames).toBeGreaterThan(stats.masks - masks);
      expect(stats).toMatchObject({ waitsForMask: false, reused: 0, path: PATH });
    });
  });

  test("waitForMask 'auto' on this engine's path with a camera slower than its frame rate says: frames wait for their own mask again", async () => {
    // A frame every 400 ms from a track that says 60 frames/s; each run takes 150 ms more than the model's own.
    await onCanvasTrack(
      {},
      async (auto, live) => {
        await injectFault(auto.segmenter, 'slow-runs');
        const output = auto.process(live.track);
        // Judged on 60 frames/s, frames stop waiting; measured, the camera is slow enough to wait for.
        let stopped = false;
        await until(
          () => (stopped ||= !auto.stats.waitsForMask) && auto.stats.waitsForMask,
          () => `frames to stop waiting, then wait again (stats: ${JSON.stringify(auto.stats)})`,
        );
        const before = auto.stats;
        let waiting = true;
        await until(
          () => {
            waiting &&= auto.stats.waitsForMask;
            return auto.stats.frames >= before.frames + 8;
          },
          () => `8 more output frames (stats: ${JSON.stringify(auto.stats)})`,
        );
        const stats = auto.stats;
        console.log(
          `video slow camera (${stats.path}): ${stats.frames - before.frames} frames on ${stats.masks - before.masks} masks, ${stats.dropped - before.dropped} dropped after frames waited again`,
        );
        // From then on, each frame on its own mask, none counted dropped.
        expect(waiting).toBe(true);
        expect(stats).toMatchObject({ reused: 0, path: PATH });
        expect(stats.masks - before.masks).toBe(stats.frames - before.frames);
        expect(stats.dropped).toBe(before.dropped);
        await expectGreen(output);
      },
      400,
    );
  });

  test.runIf(HAS_GENERATOR)('the WebGL2 compositor in the worker (forced; a software GL here) draws the same effect', async () => {
    const gl = await createVideoEffect({ effect: 'color', background: [0, 255, 0], compositor: 'webgl2', backends: ['wasm'], ...WAITING });
    const live = canvasTrack();
    try {
      const output = gl.process(live.track);
      await until(() => gl.stats.frames >= 2, 'two output frames');
      expect(gl.stats.compositor).toBe('webgl2');
      await expectGreen(output);
      // Switched while running: the blur keeps the (flat) picture's colour, no green left.
      await gl.update({ effect: 'blur', blur: 2 });
      const frames = gl.stats.frames;
      await until(() => gl.stats.frames >= frames + 2, 'frames with the blur');
      const blurred = await centreOf(output);
      expect(isCanvasPicture(blurred), String(blurred)).toBe(true);
    } finally {
      live.stop();
      await gl.close();
    }
  });

  for (const fault of ['crash-in-run', 'error-in-run'] as const) {
    test(`the model's worker dies mid-call (${fault}): a fresh worker takes over, and the same output track keeps the effect`, async () => {
      const crashing = await createVideoEffect({ effect: 'color', background: '#00ff00', backends: ['wasm'], ...WAITING });
      const live = canvasTrack();
      try {
        const output = crashing.process(live.track);
        await until(() => crashing.stats.frames >= 2, 'two output frames');
        expect(crashing.stats.restarts).toBe(0);
        await injectFault(crashing.segmenter, fault);
        await until(() => crashing.stats.restarts === 1, 'the worker to be replaced');
        const frames = crashing.stats.frames;
        await until(() => crashing.stats.frames >= frames + 3, 'frames from the new worker');
        expect(output.readyState).toBe('live');
        expect(crashing.stats).toMatchObject({ backend: 'wasm', restarts: 1, fallbacks: [] });
        expect(crashing.segmenter.workerRestarts).toBe(1);
        // Still the effect: no person, so all green.
        await expectGreen(output);
        live.stop();
        await until(() => output.readyState === 'ended', 'the output to end with the input');
      } finally {
        live.stop();
        await crashing.close();
      }
    });
  }

  test.runIf(SPEC_PATH)(
    "Safari's path: the track goes to the loop's worker as a copy; the caller's stop() ends the output; the next track gets a new output at once",
    async () => {
      const spec = await createVideoEffect({ effect: 'color', background: '#00ff00', backends: ['wasm'], ...WAITING });
      const [first, second] = [canvasTrack(), canvasTrack()];
      try {
        const output = spec.process(first.track);
        await until(() => spec.stats.frames >= 3, 'three output frames');
        expect(spec.stats).toMatchObject({ path: 'worker', backend: 'wasm', restarts: 0 });
        // The caller's track is still the caller's (a track sent to a worker would have ended here).
        expect(first.track.readyState).toBe('live');
        await expectGreen(output);
        // The caller stops its track (its copy in the worker would go on): the output ends, and no frame is left open.
        first.stop();
        await until(() => output.readyState === 'ended', 'the output to end');
        await until(() => spec.stats.openFrames === 0, 'every frame closed');
        // At once, another track: a generator made ahead in the worker, so the same path.
        const frames = spec.stats.frames;
        const next = spec.process(second.track);
        expect(next).not.toBe(output);
        expect(spec.stats.path).toBe('worker');
        await until(() => spec.stats.frames >= frames + 3, 'frames on the second output');
        await expectGreen(next);
        await spec.close();
        expect(next.readyState).toBe('ended');
        expect(second.track.readyState).toBe('live');
        expect(spec.stats.openFrames).toBe(0);
      } finally {
        first.stop();
        second.stop();
        await spec.close();
      }
    },
  );

  test("the frame loop's own worker dies mid-call: a fresh one takes over the same output (on Safari's path, whose generator it held, the output ends with WORKER_CRASHED)", async () => {
    const fx2 = await createVideoEffect({ effect: 'color', background: '#00ff00', backends: ['wasm'], ...WAITING });
    const errors: Error[] = [];
    fx2.onError = (error) => errors.push(error);
    const [live, other] = [canvasTrack(), canvasTrack()];
    try {
      const output = fx2.process(live.track);
      await until(() => fx2.stats.frames >= 2, 'two output frames');
      expect(await crashLoopWorker(fx2)).toBe(true);
      if (SPEC_PATH) {
        await until(() => output.readyState === 'ended', 'the output to end');
        expect(errors.map((e) => (e as { code?: string }).code)).toEqual(['WORKER_CRASHED']);
        // The effect itself goes on: the next track gets the main-thread path's output, or a new loop worker's.
        const next = fx2.process(other.track);
        const frames = fx2.stats.frames;
        await until(() => fx2.stats.frames >= frames + 2, 'frames on the next output');
        expect(next.readyState).toBe('live');
        return;
      }
      await until(() => fx2.stats.restarts === 1, 'the loop worker to be replaced');
      const frames = fx2.stats.frames;
      await until(() => fx2.stats.frames >= frames + 3, "frames from the new loop's worker");
      expect(output.readyState).toBe('live');
      expect(errors).toEqual([]);
      // The model's worker was not touched.
      expect(fx2.segmenter.workerRestarts).toBe(0);
      await expectGreen(output);
      live.stop();
      await until(() => output.readyState === 'ended', 'the output to end with the input');
    } finally {
      live.stop();
      other.stop();
      await fx2.close();
    }
  });

  // In every engine the masks' timestamps are checked against the times the test drew the frames at; outside
  // WebKitGTK also against the test's own <video> of the same track. Not there: WebKitGTK's
  // requestVideoFrameCallback gives every frame of a track a mediaTime of 0. Its <video> of a canvas track
  // with no frame rate stopped calling back after two frames (the main-thread path's too): there the track
  // says 30 frames/s (a frame is still taken only when the canvas changed).
  test("each mask carries its own frame's timestamp (VideoFrame.timestamp's µs, the media time on the main-thread path): a mask lines up with its frame", async () => {
    // A track whose frames show a person on their left half (with a red marker in a corner), on their right
    // half (green) or no one (blue), never the same twice in a row, a frame every 110–400 ms. The test notes
    // when it drew each frame (and, outside WebKitGTK, its own <video> of the same track reads each frame's
    // marker and media time); each mask must show what the frame at its timestamp showed.
    const person = await createImageBitmap(await (await fetch('/models/people/samples/images/grace_hopper.jpg')).blob());
    const canvas = document.createElement('canvas');
    [canvas.width, canvas.height] = [320, 240];
    const ctx = canvas.getContext('2d')!;
    const next = frameSequence();
    const drawn: { at: number; shown: Shown }[] = [];
    let running = true;
    const draw = () => {
      if (!running) return;
      const { gap, shown } = next();
      ctx.fillStyle = '#5a6ea0';
      ctx.fillRect(0, 0, 320, 240);
      if (shown !== 'none') ctx.drawImage(person, shown === 'left' ? 0 : 160, 0, 160, 240);
      ctx.fillStyle = { left: '#ff0000', right: '#00ff00', none: '#0000ff' }[shown];
      ctx.fillRect(0, 0, 12, 12);
      drawn.push({ at: Math.round(performance.now() * 1000), shown });
      // Uneven gaps, so that one offset only lines the masks' timestamps up with the frames' (below).
      setTimeout(draw, gap);
    };
    draw();
    const track = canvas.captureStream(IS_WEBKIT ? 30 : undefined).getVideoTracks()[0]!;
    const frames = new Map<number, Shown>();
    const video = document.createElement('video');
    if (!IS_WEBKIT) {
      video.muted = true;
      video.srcObject = new MediaStream([track]);
      const read = new OffscreenCanvas(320, 240).getContext('2d', { willReadFrequently: true })!;
      const onFrame = (_: number, metadata: VideoFrameCallbackMetadata) => {
        read.drawImage(video, 0, 0, 320, 240);
        const [r, g, b] = [...read.getImageData(4, 4, 1, 1).data] as [number, number, number];
        const shown =
          r > 155 && g < 100 && b < 100 ? 'left' : g > 155 && r < 100 && b < 100 ? 'right' : b > 155 && r < 100 && g < 100 ? 'none' : null;
        if (shown) frames.set(Math.round(metadata.mediaTime * 1e6), shown);
        video.requestVideoFrameCallback(onFrame);
      };
      video.requestVideoFrameCallback(onFrame);
      await video.play();
    }
    const masks: { timestamp: number; shown: Shown }[] = [];
    const fx = await createVideoEffect({ effect: 'color', background: '#00ff00', backends: ['wasm'], ...WAITING });
    fx.onMask = ({ classIds, width, timestamp }) => {
      let [subject, x] = [0, 0];
      for (let i = 0; i < classIds.length; i++) if (classIds[i] !== 0) [subject, x] = [subject + 1, x + (i % width)];
      // A person fills a good part of the frame (on the half where the subject's columns are); no one, almost none of it.
      const share = subject / classIds.length;
      if (share > 0.1) masks.push({ timestamp, shown: x / subject < width / 2 ? 'left' : 'right' });
      else if (share < 0.01) masks.push({ timestamp, shown: 'none' });
    };
    try {
      fx.process(track);
      await until(
        () => masks.length >= 10,
        () => `10 masks (${masks.length}; stats: ${JSON.stringify(fx.stats)})`,
      );
    } finally {
      running = false;
      track.stop();
      await fx.close();
      video.srcObject = null;
    }
    // In order (a frame the page's <video> calls back twice may be sent twice: the same timestamp).
    expect(
      masks.every(({ timestamp }, i) => i === 0 || timestamp >= masks[i - 1]!.timestamp),
      JSON.stringify(masks),
    ).toBe(true);
    // Firefox's mediaTime counts from when each <video> began, and puts a <video>'s first frame at the start
    // of that clock (0, or near it) wherever the track's clock is: on the main-thread path the first mask is
    // left out.
    const stamped = PATH === 'main-thread' ? masks.slice(1) : masks;
    expect(stamped.length).toBeGreaterThanOrEqual(PATH === 'worker' ? 10 : 9);
    expect(new Set(stamped.map(({ shown }) => shown)).size).toBeGreaterThanOrEqual(2);

    // Against the draws: a frame is stamped when the track takes it (or the loop reads it), a little after
    // the test drew it, on a clock of the engine's own. For each frame the first mask could be, the offset
    // that puts it there; an alignment puts every mask on a frame of its kind, the masks' offsets from their
    // frames' draws one constant to within DRAW_TOLERANCE (the smallest gap is 110 ms). The gaps have no
    // period: one alignment only. Timestamps all the same, or another frame's, line up with none.
    // Under the full suite's load, Safari's path (stamped when its loop reads the frame) read one frame 57 ms
    // later than the others, on the right alignment. 90 ms stays under the smallest gap; a wrong alignment's
    // lags move by the gaps' differences (110–400 ms, uneven), and its frames must show what the masks show.
    const DRAW_TOLERANCE = 90_000;
    const nearest = (t: number) => drawn.reduce((best, { at }, j) => (Math.abs(at - t) < Math.abs(drawn[best]!.at - t) ? j : best), 0);
    const lags = (alignment: number[]) => alignment.map((j, i) => stamped[i]!.timestamp - drawn[j]!.at);
    const spread = (alignment: number[]) => Math.max(...lags(alignment)) - Math.min(...lags(alignment));
    const placements = drawn.map(({ at }) => stamped.map(({ timestamp }) => nearest(timestamp - stamped[0]!.timestamp + at)));
    const alignments = [...new Map(placements.map((alignment) => [alignment.join(), alignment])).values()].filter(
      (alignment) => spread(alignment) <= DRAW_TOLERANCE && alignment.every((j, i) => drawn[j]!.shown === stamped[i]!.shown),
    );
    console.log(
      `video timestamps (${PATH}): ${stamped.length} masks, ${drawn.length} frames drawn; ` +
        alignments
          .map(
            (alignment) =>
              `frames ${alignment.join(',')}: offsets ${lags(alignment).join(',')} µs from the draws (spread ${spread(alignment)} µs)`,
          )
          .join('; '),
    );
    expect(alignments.length, JSON.stringify({ masks: stamped, drawn })).toBe(1);
    const [alignment] = alignments as [number[]];
    // Each mask lines up with its frame: it shows what its frame showed.
    expect(alignment.map((j) => drawn[j]!.shown)).toEqual(stamped.map(({ shown }) => shown));
    if (IS_WEBKIT) return;

    // Against the test's own <video>, to the µs.
    const times = [...frames.keys()];
    const frameAt = (t: number) => times.find((time) => Math.abs(time - t) <= 2);
    const candidates = times.map((t) => stamped[0]!.timestamp - t);
    const matched = (offset: number) => stamped.filter(({ timestamp }) => frameAt(timestamp - offset) !== undefined);
    const offset = candidates.reduce((best, o) => (matched(o).length > matched(best).length ? o : best), candidates[0]!);
    // One alignment only (the gaps are uneven): any other offset leaves a mask on no frame.
    const aligned = candidates.filter((o) => matched(o).length === stamped.length);
    expect(aligned.every((o) => Math.abs(o - offset) <= 4)).toBe(true);
    // Chromium stamps a track's frames on one clock (VideoFrame.timestamp, rVFC's mediaTime); Firefox's
    // <video> elements' clocks differ by a constant, to the µs rounding.
    console.log(`video timestamps (${PATH}): offset ${offset} µs from the test's <video>`);
    expect(matched(offset).length).toBe(stamped.length);
    if (HAS_GENERATOR) expect(offset).toBe(0);
    expect(stamped.map(({ timestamp }) => frames.get(frameAt(timestamp - offset)!))).toEqual(stamped.map(({ shown }) => shown));
  });

  test("effect 'none' and 'overlay' show the frame as it is (no class but the background here); switched to the colour and back, one <video> of the output shows each", async () => {
    await onCanvasTrack({ effect: 'none', ...WAITING }, async (plain, live) => {
      const output = plain.process(live.track);
      // One <video> of the output for the whole test, as an app shows it (a <video> of WebKitGTK's capture
      // of a canvas with no frame rate showed its first frame only).
      const { centre, close } = await videoOf(output);
      try {
        const shows = async (what: string, check: (pixel: number[]) => boolean) => {
          const frames = plain.stats.frames;
          await until(() => plain.stats.frames >= frames + 3, `frames with ${what}`);
          await until(
            () => check(centre()),
            () => `the output to show ${what} (its centre: ${String(centre())})`,
            20_000,
          );
        };
        await shows("'none': the picture", isCanvasPicture);
        await plain.update({ effect: 'overlay' });
        await shows("'overlay': the picture", isCanvasPicture);
        await plain.update({ effect: 'color', background: '#00ff00' });
        await shows('the colour', (pixel) => offGreen(pixel) < 30);
        await plain.update({ effect: 'none' });
        await shows("'none' again: the picture", isCanvasPicture);
        expect(plain.stats).toMatchObject({ path: PATH, reused: 0 });
      } finally {
        close();
      }
    });
  });

  test('close() ends the output, stops the loop and frees the worker', async () => {
    const other = await createVideoEffect({ effect: 'blur', backends: ['wasm'], ...WAITING });
    const live = canvasTrack();
    try {
      const output = other.process(live.track);
      await until(() => other.stats.frames >= 2, 'two output frames');
      await other.close();
      expect(output.readyState).toBe('ended');
      await expect(other.segmenter.segmentRaw(new ImageData(4, 4))).rejects.toMatchObject({ code: 'DISPOSED' });
      expect(() => other.process(canvasTrack().track)).toThrow(expect.objectContaining({ code: 'DISPOSED' }));
      expect(other.stats.openFrames).toBe(0);
    } finally {
      live.stop();
    }
  });
});

// The frame loop: read a frame, segment it on the fast path, smooth and refine its mask, composite the
// effect, write it. The model may run in another worker (`remoteVideoModel`): then the next frame is at
// the model while this one is composited, two frames in flight. A frame that comes while the model is
// busy waits in a one-frame slot for it, never queued. When a newer frame takes that slot, the older one
// is shown on the masks of the frame before it (carried) instead of dropped; a carried frame that a newer
// one replaces before its turn is dropped. The output stays in order, and every frame read is closed,
// whatever happens to it.
import { transfer } from 'comlink';
import { classColors } from '../model/colors.js';
import type { PreprocessMeta } from '../pipeline/index.js';
import { serializeError } from '../runtime/error-transfer.js';
import type { Compositor, SceneEffect } from './compositor.js';
import { createCompositor } from './create-compositor.js';
import { maskFactor, parseHexColor } from './effect.js';
import { canvas2d, FrameInput, gridMap, type LiveFrame, type SubjectGrid } from './fast-path.js';
import { MaskPace } from './mask-pace.js';
import type { FrameReport, VideoEvents, VideoSettings, VideoStarted, VideoStartRequest } from './protocol.js';
import type { FrameMasks, VideoModel } from './video-model.js';

export class VideoSession {
  readonly #model: VideoModel;
  readonly #events: VideoEvents;
  #settings: VideoSettings;
  readonly #input = new FrameInput();
  #compositor: Compositor | null = null;
  readonly #plain: OffscreenCanvasRenderingContext2D;
  #guide: OffscreenCanvasRenderingContext2D | null = null;
  /** RGB copies of camera frames, each taken until its frame is written or dropped (see #copy). */
  readonly #pool: OffscreenCanvasRenderingContext2D[] = [];
  #overlay: OffscreenCanvasRenderingContext2D | null = null;
  #overlayImage: ImageData | null = null;
  readonly #colours: [number, number, number][];
  /** The last good masks (and the timestamp of the frame they were made from), reused when the model fails on a frame. */
  #last: { masks: FrameMasks; meta: PreprocessMeta; timestamp: number } | null = null;
  /** The masks last sent to onMask. */
  #maskSent: FrameMasks | null = null;
  /** The model's last call in flight (settles once it has); with frames not waiting, a failure the next frame reports. */
  #modelCall: Promise<void> | null = null;
  /** `waitForMask: 'auto'`: the pace of the camera, the model and this loop (made when the loop starts). */
  #pace = new MaskPace();
  /** Whether frames wait for their own mask now; on the `main-thread` path, the change to it that frames wait for. */
  #waiting: boolean;
  #switching: Promise<unknown> = Promise.resolve();
  /** The `main-thread` path: frames in work here, and when the last one was done (ms). */
  #inWork = 0;
  #doneAt = 0;
  #failure: ReturnType<typeof serializeError> | undefined;
  #dropped = 0;
  /** Frames read from the input and not closed yet (a leak check: it is 0 between frames). */
  #open = 0;
  readonly #closed = new WeakSet<VideoFrame>();
  #stopped = false;
  #reader: ReadableStreamDefaultReader<VideoFrame> | null = null;
  #loop: Promise<void> | null = null;

  constructor(model: VideoModel, settings: VideoSettings, events: VideoEvents) {
    this.#model = model;
    this.#settings = settings;
    this.#events = events;
    this.#waiting = settings.waitForMask !== false;
    this.#plain = new OffscreenCanvas(1, 1).getContext('2d')!;
    this.#colours = classColors(model.spec).map((hex) => [...parseHexColor(hex)] as [number, number, number]);
  }

  start(request: VideoStartRequest): VideoStarted {
    const compositor = this.#compositorFor(this.#settings).kind;
    const { input } = request;
    this.#pace = new MaskPace(input.frameRate);
    if (input.kind === 'streams') this.#loop = this.#run(input.readable, input.writable, input.frameRate);
    return { compositor };
  }

  update(settings: VideoSettings): void {
    const old = this.#settings;
    if (old.image && old.image !== settings.image) old.image.close();
    this.#settings = settings;
  }

  /**
   * The `main-thread` path: one frame, composited, as a bitmap (the frame is closed). The page may send
   * the next frame before this one is back: its input is drawn at once, and the model takes frames in
   * order, so results come back in order.
   */
  async frame(frame: ImageBitmap): Promise<{ bitmap: ImageBitmap; report: FrameReport }> {
    const t0 = performance.now();
    // Idle since the last frame was done, where none is in work.
    this.#pace.frame(t0, this.#waiting, this.#inWork === 0 ? t0 - this.#doneAt : 0);
    this.#inWork++;
    try {
      // A change of how frames take masks starts once the model's calls in flight are back (the frames
      // sent meanwhile wait for it too, in order), so that the two ways never overlap.
      if (this.#waitingChanged()) this.#switching = this.#modelCall ?? Promise.resolve();
      await this.#switching;
      const segmented = await (this.#waiting ? this.#segment(frame) : this.#latest(frame, () => frame));
      const { canvas, report } = this.#composite(timestampOf(frame), segmented);
      const bitmap = canvas.transferToImageBitmap();
      report.latency = performance.now() - t0;
      return transfer({ bitmap, report }, [bitmap]);
    } finally {
      this.#inWork--;
      this.#doneAt = performance.now();
      frame.close();
    }
  }

  /** Stops the loop; resolves with the input frames still open then (0: every frame read was closed). */
  async stop(): Promise<number> {
    this.#stopped = true;
    this.#model.close?.();
    await this.#reader?.cancel().catch(() => undefined);
    await this.#loop;
    this.#compositor?.dispose();
    this.#compositor = null;
    this.#settings.image?.close();
    return this.#open;
  }

  async #run(readable: ReadableStream<VideoFrame>, writable: WritableStream<VideoFrame>, frameRate?: number): Promise<void> {
    const reader = (this.#reader = readable.getReader());
    const writer = writable.getWriter();
    // A frame is at the model from its read until its grid is back; `held` waits for the model (the newest).
    let atModel = false;
    let held: Taken | null = null;
    // A frame that came while the model was busy and was not the newest when it freed: it is shown with
    // the masks of the frame before it, once that one is written (`carried`, at most one waiting).
    let carried: Taken | null = null;
    // The output in order: each frame's write follows the one before it.
    let written: Promise<unknown> = Promise.resolve();
    // Every frame's work, chained so that the loop can wait for the last one.
    let pending: Promise<void> = Promise.resolve();
    let failure: unknown;
    const fail = (error: unknown) => {
      // The loop ends on the next read; the reader is cancelled so that it does not wait for one.
      failure ??= error;
      void reader.cancel().catch(() => undefined);
    };
    const output = (taken: Taken, work: Promise<FrameReport | undefined>) => {
      const done = work
        .catch(fail)
        .finally(() => this.#release(taken))
        .then((report) => {
          if (!report) return;
          // Counted after this frame is closed: the next frame may be at the model already.
          report.openFrames = this.#open;
          this.#events.frame(report);
        });
      written = done;
      pending = Promise.all([pending, done]).then(() => undefined);
    };
    const begin = (taken: Taken) => {
      atModel = true;
      // The input is drawn now, while the frame is the newest; the model runs while the last frame is composited.
      const { source, width, height, timestamp } = taken;
      const segmented = this.#call(this.#segmentCopy(source, width, height, timestamp, performance.now() - taken.copyMs)).finally(() => {
        atModel = false;
        const next = held;
        held = null;
        if (next) {
          if (this.#stopped || failure !== undefined) this.#release(next);
          else begin(next);
        }
      });
      const before = written;
      output(
        taken,
        segmented.then(async (result) => {
          await before;
          return this.#write(timestamp, result, writer, taken.read);
        }),
      );
    };
    const drop = (taken: Taken) => {
      this.#release(taken);
      this.#dropped++;
      this.#events.frame({ dropped: this.#dropped, openFrames: this.#open, waiting: this.#waiting });
    };
    const carry = (taken: Taken) => {
      // A carried frame that a newer one replaces is dropped at once.
      if (carried) drop(carried);
      carried = taken;
      const before = written;
      output(
        taken,
        before.then(() => {
          // Replaced (and dropped) before its turn.
          if (carried !== taken) return undefined;
          carried = null;
          const { source, width, height, timestamp } = taken;
          const segmented = this.#stopped || failure !== undefined ? null : this.#carriedMasks(source, width, height);
          if (segmented) return this.#write(timestamp, segmented, writer, taken.read);
          drop(taken);
          return undefined;
        }),
      );
    };
    // The track processor keeps one frame and discards older ones while this thread is busy: those are
    // counted from the gap between timestamps (in µs) at the camera's interval, where its track gives a
    // frame rate (MaskPace's: longer where the camera gives fewer frames than it says).
    let last: number | null = null;
    try {
      for (;;) {
        const asked = performance.now();
        const { value: frame, done } = await reader.read();
        if (done) break;
        this.#open++;
        const now = performance.now();
        const idle = now - asked;
        this.#pace.frame(now, this.#waiting, idle);
        // A frame the loop waited for most of the time since the last: none came meanwhile to be discarded.
        const gap = last === null ? 0 : (frame.timestamp - last) / 1000;
        if (frameRate && gap > 0 && idle < gap / 2) this.#dropped += Math.max(0, Math.round(gap / this.#pace.interval) - 1);
        last = frame.timestamp;
        if (this.#waitingChanged()) {
          // How frames take masks changes (waitForMask 'auto'): the frames in flight are written first, so
          // that the two ways never overlap; the frame waiting for the model is shown on the masks before it.
          if (held) carry(held);
          held = null;
          await Promise.all([written, this.#modelCall]);
        }
        if (this.#stopped || failure !== undefined) {
          this.#close(frame);
          break;
        }
        if (!this.#waiting) {
          const taken = this.#take(frame, now);
          output(
            taken,
            this.#latest(frame, () => this.#copy(taken)).then((segmented) => this.#write(taken.timestamp, segmented, writer, now)),
          );
          // One frame at a time: the next is read once this one is written (the newest, by then).
          await written;
          continue;
        }
        const taken = this.#take(frame, now);
        // Copied at once, and the camera's frame closed: it may wait for the model a while.
        this.#copy(taken);
        if (!atModel) {
          begin(taken);
          continue;
        }
        // The frame the model takes next is the newest; the one it replaces is shown on the last masks.
        if (held) carry(held);
        held = taken;
      }
    } catch (error) {
      failure ??= error;
    } finally {
      if (held) this.#release(held);
      held = null;
      await pending;
      await writer.close().catch(() => undefined);
      this.#events.ended(failure === undefined || this.#stopped ? undefined : serializeError(failure));
    }
  }

  /**
   * Composites the frame stamped `timestamp` (its pixels: `segmented.source`, still the caller's) with its
   * grid and writes the result; its report, to send once the frame is closed.
   */
  async #write(
    timestamp: number,
    segmented: Segmented,
    writer: WritableStreamDefaultWriter<VideoFrame>,
    t0: number,
  ): Promise<FrameReport | undefined> {
    if (this.#stopped) return undefined;
    const { canvas, report } = this.#composite(timestamp, segmented);
    // Alpha only for the cutout: an opaque frame stays opaque for encoders and peer connections.
    const out = new VideoFrame(canvas, { timestamp, alpha: this.#settings.effect === 'cutout' ? 'keep' : 'discard' });
    try {
      await writer.write(out);
    } finally {
      // The generator's sink took it; a relay's port has sent its copy by now (a no-op when closed).
      out.close();
    }
    report.latency = performance.now() - t0;
    return report;
  }

  /** Closes a frame read from the input, once (a carried frame may be dropped before its turn comes). */
  #close(frame: VideoFrame): void {
    if (this.#closed.has(frame)) return;
    this.#closed.add(frame);
    frame.close();
    this.#open--;
  }

  /**
   * The network input and the guide drawn from `frame` (at once, before the first await), then the
   * model's masks; on a model failure, the last good ones (with the failure, for the page to move to the
   * next backend).
   */
  #segment(frame: ImageBitmap): Promise<Segmented> {
    const [width, height] = frameSize(frame);
    return this.#call(this.#segmentCopy(frame, width, height, timestampOf(frame), performance.now()));
  }

  /** A frame the streams loop reads at `read` (ms); drawn from as it is until #copy. */
  #take(frame: VideoFrame, read: number): Taken {
    const [width, height] = frameSize(frame);
    return { frame, source: frame, copy: null, copyMs: 0, read, timestamp: frame.timestamp, width, height };
  }

  /**
   * What a taken frame is drawn from from now on (once a copy, its copy). On the CPU every draw of a camera
   * frame converts all its pixels from YUV, even a small one, so where the compositor draws from copies
   * (canvas 2D) the frame is converted once into an RGB copy of its own, from the pool, and the model's
   * input, the guide and the compositor draw from that. The camera's frame is closed then: a camera lends
   * few frames, and one the page holds holds back its next ones (Chromium's capture gave 30 frames/s, not
   * 60, with two held 50 ms). A GPU compositor takes the frame as it is (a copy on the CPU would cost it a
   * read-back).
   */
  #copy(taken: Taken): FrameCopy {
    if (taken.source !== taken.frame || this.#compositorFor(this.#settings).kind !== 'canvas2d') return taken.source;
    const t0 = performance.now();
    const { frame, width, height } = taken;
    const ctx = canvas2d(this.#pool.pop() ?? null, width, height);
    ctx.drawImage(frame, 0, 0, width, height);
    this.#close(frame);
    [taken.source, taken.copy, taken.copyMs] = [ctx.canvas, ctx, performance.now() - t0];
    return ctx.canvas;
  }

  /** Done with a taken frame: closed (once), and its copy back in the pool. */
  #release(taken: Taken): void {
    this.#close(taken.frame);
    if (taken.copy) this.#pool.push(taken.copy);
    taken.copy = null;
  }

  /** `segmented`, kept as the model's last call in flight until it settles. */
  #call(segmented: Promise<Segmented>): Promise<Segmented> {
    const settled: Promise<void> = segmented.then(noop, noop).then(() => {
      if (this.#modelCall === settled) this.#modelCall = null;
    });
    this.#modelCall = settled;
    return segmented;
  }

  /** `t0`: when the frame's copy was begun (the loop's own work on it is timed from there, for `waitForMask: 'auto'`). */
  async #segmentCopy(source: FrameCopy, width: number, height: number, timestamp: number, t0: number): Promise<Segmented> {
    const settings = this.#settings;
    const { tensor, meta } = this.#input.prepare(source, width, height, this.#model.spec.preprocess);
    const plain = settings.effect === 'none' || settings.effect === 'overlay';
    const guide = plain ? null : this.#guideOf(source, width, height);
    const t1 = performance.now();
    this.#pace.input(t1 - t0);
    try {
      const masks = await this.#model.masks({ tensor, meta, confidence: settings.confidence, smoothing: settings.smoothing, guide });
      this.#pace.trip(performance.now() - t1);
      this.#last = { masks, meta, timestamp };
      return { masks, meta, timestamp, width, height, source };
    } catch (error) {
      // The output keeps flowing on the last good mask; with none yet, the failure is the loop's.
      if (!this.#last) throw error;
      return { ...this.#last, width, height, source, failure: serializeError(error) };
    }
  }

  /** Sets `#waiting` from this frame on (with 'auto', from the pace); true when it changed. */
  #waitingChanged(): boolean {
    const wait = this.#settings.waitForMask;
    const waiting = wait === 'auto' ? this.#pace.choose() : wait;
    if (waiting === this.#waiting) return false;
    this.#waiting = waiting;
    return true;
  }

  /**
   * Frames not waiting for their mask: the frame on the newest masks at once, and to the model too when it is free (its
   * masks are for the frames after it). Only a frame with no masks of its size yet waits for the model.
   * `copy`: what the frame is drawn from once the model takes it too (see #copy).
   */
  async #latest(frame: LiveFrame, copy: () => FrameCopy): Promise<Segmented> {
    const [width, height] = frameSize(frame);
    // Drawn once, by the compositor, unless the model takes the frame too (a shown frame's one draw).
    let source: FrameCopy = frame;
    for (;;) {
      let own: Promise<Segmented> | null = null;
      if (!this.#modelCall) {
        const t0 = performance.now();
        source = copy();
        own = this.#call(this.#segmentCopy(source, width, height, timestampOf(frame), t0));
      }
      const last = this.#lastFor(width, height);
      if (last) {
        // This frame's own failure is reported by a frame after it.
        void own?.then((segmented) => void (this.#failure ??= segmented.failure), noop);
        const failure = this.#failure;
        this.#failure = undefined;
        return { ...last, width, height, source, carried: true, ...(failure ? { failure } : {}) };
      }
      if (own) return own;
      // The first frames (or the first of a new size) wait for the frame at the model, then for their own.
      await this.#modelCall;
    }
  }

  /** A frame the model did not take, on the last masks (null when there are none for a frame of its size). */
  #carriedMasks(source: FrameCopy, width: number, height: number): Segmented | null {
    const last = this.#lastFor(width, height);
    if (!last) return null;
    return { ...last, width, height, source, carried: true };
  }

  /** The last good masks, where they were made for a frame of this size. */
  #lastFor(width: number, height: number) {
    const last = this.#last;
    return last && last.meta.originalWidth === width && last.meta.originalHeight === height ? last : null;
  }

  /** The frame at 1/maskFactor of its size, RGBA: what the coverage is refined against (and comes at). */
  #guideOf(frame: FrameCopy, width: number, height: number) {
    const factor = maskFactor(width, height);
    const [mw, mh] = [Math.ceil(width / factor), Math.ceil(height / factor)];
    const ctx = (this.#guide = canvas2d(this.#guide, mw, mh));
    ctx.drawImage(frame, 0, 0, mw, mh);
    return { data: ctx.getImageData(0, 0, mw, mh).data, width: mw, height: mh, frameWidth: width, frameHeight: height };
  }

  /** Draws the frame stamped `timestamp` (its pixels: `source`) with the effect, from its masks. */
  #composite(
    timestamp: number,
    { masks, meta, timestamp: made, width, height, source, failure, carried }: Segmented,
  ): { canvas: OffscreenCanvas; report: FrameReport } {
    const settings = this.#settings;
    const { grid, coverage } = masks;
    const report: FrameReport = { dropped: this.#dropped, waiting: this.#waiting };
    // The page moves the effect to the next backend, as a failed call is moved (the model's worker stays).
    if (failure) [report.reused, report.failure] = [true, failure];
    if (carried) report.carried = true;
    // Each frame's own masks go to onMask; a carried frame's were the frame's before it, reported with that
    // one, unless no frame showed them yet (waitForMask: false), and then with that frame's timestamp.
    const fresh = masks !== this.#maskSent;
    if (settings.masks && (!carried || fresh)) {
      report.mask = { classIds: grid.classIds.slice(), width: grid.width, height: grid.height, timestamp: carried ? made : timestamp };
    }
    if (fresh) report.fresh = true;
    this.#maskSent = masks;
    const t0 = performance.now();
    let canvas: OffscreenCanvas;
    // The effect switched from none or overlay this frame: its masks have no coverage yet (the next will).
    if (settings.effect === 'none' || settings.effect === 'overlay' || !coverage)
      canvas = this.#plainFrame(source, width, height, grid, gridMap(meta, grid.width, grid.height));
    else {
      const compositor = this.#compositorFor(settings);
      compositor.render(source, { coverage, width, height }, sceneEffect(settings));
      canvas = compositor.canvas as OffscreenCanvas;
    }
    // What a frame on its own masks costs this loop (waitForMask 'auto').
    if (fresh) this.#pace.composite(performance.now() - t0);
    return { canvas, report };
  }

  /** `none`: the frame as it is; `overlay`: each class's colour over it, half opaque. */
  #plainFrame(frame: FrameCopy, width: number, height: number, grid: SubjectGrid, map: ReturnType<typeof gridMap>): OffscreenCanvas {
    const out = this.#plain;
    if (out.canvas.width !== width || out.canvas.height !== height) [out.canvas.width, out.canvas.height] = [width, height];
    out.globalCompositeOperation = 'copy';
    out.drawImage(frame, 0, 0, width, height);
    out.globalCompositeOperation = 'source-over';
    if (this.#settings.effect === 'overlay') {
      const ctx = (this.#overlay = canvas2d(this.#overlay, grid.width, grid.height));
      if (this.#overlayImage?.width !== grid.width || this.#overlayImage.height !== grid.height)
        this.#overlayImage = ctx.createImageData(grid.width, grid.height);
      const image = this.#overlayImage;
      const background = this.#model.spec.backgroundClassId;
      for (let i = 0; i < grid.classIds.length; i++) {
        const id = grid.classIds[i]!;
        const rgb = this.#colours[id] ?? [255, 255, 255];
        image.data.set(rgb, i * 4);
        image.data[i * 4 + 3] = id === background ? 0 : 128;
      }
      ctx.putImageData(image, 0, 0);
      // The grid's cells drawn where they lie on the frame (the inverse of the map).
      const { crop } = map;
      out.save();
      out.beginPath();
      out.rect(crop.x, crop.y, crop.width, crop.height);
      out.clip();
      const [x, y] = [-map.offsetX / map.scaleX, -map.offsetY / map.scaleY];
      out.drawImage(ctx.canvas, x, y, grid.width / map.scaleX, grid.height / map.scaleY);
      out.restore();
    }
    return out.canvas;
  }

  #compositorFor(settings: VideoSettings): Compositor {
    this.#compositor ??= createCompositor(new OffscreenCanvas(1, 1), settings.compositor);
    return this.#compositor;
  }
}

/** What a frame is drawn from: the frame as it came, or a camera frame's RGB copy. */
type FrameCopy = LiveFrame | OffscreenCanvas;

/** A frame the streams loop took (see #take). */
interface Taken {
  /** Closed at once where it was copied, else once written or dropped. */
  frame: VideoFrame;
  /** Its pixels: its copy, or the frame. */
  source: FrameCopy;
  /** Its copy (back in the pool once the frame is written or dropped), and what drawing it cost, ms. */
  copy: OffscreenCanvasRenderingContext2D | null;
  copyMs: number;
  /** When it was read (ms): its latency counts from then. */
  read: number;
  timestamp: number;
  width: number;
  height: number;
}

/** A frame's segmentation, as the compositor takes it. */
interface Segmented {
  masks: FrameMasks;
  meta: PreprocessMeta;
  /** The timestamp of the frame the masks were made from. */
  timestamp: number;
  width: number;
  height: number;
  /** The frame's pixels to draw from. */
  source: FrameCopy;
  /** The model failed on this frame: `masks` are the last good ones. */
  failure?: ReturnType<typeof serializeError>;
  /** The model did not take this frame: `masks` are the last ones. */
  carried?: boolean;
}

const noop = () => undefined;

const frameSize = (frame: LiveFrame): [number, number] =>
  frame instanceof ImageBitmap ? [frame.width, frame.height] : [frame.displayWidth, frame.displayHeight];

const timestampOf = (frame: LiveFrame) => (frame instanceof ImageBitmap ? 0 : frame.timestamp);

function sceneEffect(settings: VideoSettings): SceneEffect {
  switch (settings.effect) {
    case 'blur':
      return { kind: 'blur', strength: settings.blur };
    case 'image':
      return settings.image ? { kind: 'image', image: settings.image } : { kind: 'color', color: settings.colour };
    case 'cutout':
      return { kind: 'cutout' };
    default:
      return { kind: 'color', color: settings.colour };
  }
}

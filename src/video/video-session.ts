// The frame loop: read a frame, segment it on the fast path, smooth and refine its mask, composite the
// effect, write it. What happens to each frame (held, carried, dropped, waiting for its mask or not, in
// order) is the FrameScheduler's; this file feeds it a path's frames and does the drawing. The model may
// run in another worker (`remoteVideoModel`): then the next frame is at the model while this one is
// composited, two frames in flight. Every frame read is closed, whatever happens to it.
import { transfer } from 'comlink';
import { classColors } from '../model/colors.js';
import type { PreprocessMeta } from '../pipeline/index.js';
import { serializeError } from '../runtime/error-transfer.js';
import type { Compositor, SceneEffect } from './compositor.js';
import { createCompositor } from './create-compositor.js';
import { maskFactor, parseHexColor } from './effect.js';
import { canvas2d, FrameInput, gridMap, type LiveFrame, type SubjectGrid } from './fast-path.js';
import { countsDropped, FrameScheduler, type FrameEnd, type SchedulerHooks, type Shown } from './frame-scheduler.js';
import { MaskPace } from './mask-pace.js';
import type { BitmapFrameMeta, FrameReport, VideoEvents, VideoSettings, VideoStages, VideoStarted, VideoStartRequest } from './protocol.js';
import type { FrameGrid, FrameMasks, MaskRequest, VideoModel } from './video-model.js';

export class VideoSession {
  readonly #model: VideoModel;
  readonly #events: VideoEvents;
  #settings: VideoSettings;
  readonly #input = new FrameInput();
  #compositor: Compositor | null = null;
  readonly #plain: OffscreenCanvasRenderingContext2D;
  #guide: OffscreenCanvasRenderingContext2D | null = null;
  /** RGB copies of camera frames (on the CPU or the GPU, as the compositor reads them), each taken until its frame is written or dropped (see #copy). */
  readonly #pool: OffscreenCanvasRenderingContext2D[] = [];
  #overlay: OffscreenCanvasRenderingContext2D | null = null;
  #overlayImage: ImageData | null = null;
  readonly #colours: [number, number, number][];
  /** The masks last sent to onMask. */
  #maskSent: FrameMasks | null = null;
  /** What happens to each frame (made when the loop starts). */
  #scheduler: FrameScheduler<Taken, ModelInput, Made> | null = null;
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
    // In memory: on the frames path its bitmaps go to the page, and WebKitGTK's page crashed using
    // bitmaps a worker had kept on its GPU context (CONTRIBUTING.md, "A browser that crashes").
    this.#plain = new OffscreenCanvas(1, 1).getContext('2d', { willReadFrequently: true })!;
    this.#colours = classColors(model.spec).map((hex) => [...parseHexColor(hex)] as [number, number, number]);
  }

  start(request: VideoStartRequest): VideoStarted {
    const compositor = this.#compositorFor(this.#settings).kind;
    const { input } = request;
    const pace = new MaskPace(input.frameRate);
    if (input.kind === 'streams') {
      const reader = (this.#reader = input.readable.getReader());
      const writer = input.writable.getWriter();
      // The track processor keeps one frame and discards older ones while this thread is busy: those are
      // counted from the gap between timestamps, where its track gives a frame rate.
      const scheduler = this.#schedule(this.#streamHooks(reader, writer), pace, input.frameRate !== undefined);
      this.#loop = this.#run(reader, writer, scheduler);
    } else this.#schedule(this.#frameHooks(), pace, false);
    return { compositor };
  }

  update(settings: VideoSettings): void {
    const old = this.#settings;
    if (old.image && old.image !== settings.image) old.image.close();
    this.#settings = settings;
  }

  /**
   * The frames path: one frame, composited, as a bitmap (the frame is closed); null where it was not
   * shown (the loop stopped or failed). The page may send the next frame before this one is back: the
   * scheduler takes frames in order, and results come back in order.
   */
  frame(frame: ImageBitmap, { timestamp, skipped }: BitmapFrameMeta): Promise<{ bitmap: ImageBitmap; report: FrameReport } | null> {
    const scheduler = this.#scheduler;
    if (!scheduler) {
      frame.close();
      return Promise.resolve(null);
    }
    const [width, height] = frameSize(frame);
    let deliver!: Taken['deliver'];
    const shown = new Promise<{ bitmap: ImageBitmap; report: FrameReport } | null>((resolve, reject) => (deliver = { resolve, reject }));
    const taken: Taken = {
      frame,
      source: frame,
      copy: null,
      read: performance.now(),
      timestamp,
      width,
      height,
      stages: {},
      deliver,
    };
    void scheduler.offer(taken, timestamp, skipped);
    return shown;
  }

  /** Stops the loop; resolves with the input frames still open then (0: every frame read was closed). */
  async stop(): Promise<number> {
    this.#stopped = true;
    this.#scheduler?.stop();
    this.#model.close?.();
    await this.#reader?.cancel().catch(() => undefined);
    await this.#loop;
    await this.#scheduler?.end();
    this.#compositor?.dispose();
    this.#compositor = null;
    this.#settings.image?.close();
    return this.#open;
  }

  #schedule(
    hooks: Pick<SchedulerHooks<Taken, ModelInput, Made>, 'keep' | 'write' | 'done' | 'failed'>,
    pace: MaskPace,
    countGaps: boolean,
  ): FrameScheduler<Taken, ModelInput, Made> {
    const scheduler = new FrameScheduler<Taken, ModelInput, Made>(
      {
        ...hooks,
        now: () => performance.now(),
        prepare: (taken) => this.#prepare(taken),
        model: async ({ request, timestamp }) => {
          let grid: FrameGrid;
          try {
            grid = await this.#model.grid(request);
          } finally {
            this.#input.release(request.tensor, this.#model.spec.preprocess);
          }
          return {
            work: grid.timings.run + grid.timings.grid,
            masks: (roundTrip) => ({ masks: this.#model.masks(grid, request), meta: request.meta, timestamp, roundTrip }),
          };
        },
        fits: (made, { width, height }) => made.meta.originalWidth === width && made.meta.originalHeight === height,
      },
      { waitForMask: this.#settings.waitForMask, pace, countGaps },
    );
    this.#scheduler = scheduler;
    return scheduler;
  }

  /** The streams and track paths (the host hands the track path's input over as streams): frames read from a track processor, written to a generator. */
  #streamHooks(reader: ReadableStreamDefaultReader<VideoFrame>, writer: WritableStreamDefaultWriter<VideoFrame>) {
    return {
      keep: (taken: Taken) => void this.#copy(taken),
      write: (taken: Taken, shown: Shown<Made>) => this.#write(taken, shown, writer),
      done: (taken: Taken, end: FrameEnd) => {
        this.#release(taken);
        // Counted after this frame is closed: the next frame may be at the model already.
        if (end.is === 'shown') {
          const { report } = taken.written!;
          report.openFrames = this.#open;
          this.#events.frame(report);
        } else if (countsDropped(end)) {
          this.#events.frame({ dropped: this.#scheduler!.dropped, openFrames: this.#open, waiting: this.#scheduler!.waiting });
        }
      },
      // The loop ends on the next read; the reader is cancelled so that it does not wait for one.
      failed: () => void reader.cancel().catch(() => undefined),
    };
  }

  /** The frames path: frames are bitmaps the page sent (never copied), each answered with its composited bitmap. */
  #frameHooks() {
    return {
      keep: noop,
      write: (taken: Taken, shown: Shown<Made>) => {
        const { canvas, report } = this.#composite(taken, shown);
        const bitmap = canvas.transferToImageBitmap();
        report.latency = performance.now() - taken.read;
        this.#paced(report);
        taken.written = { bitmap, report };
        return Promise.resolve(true);
      },
      done: (taken: Taken, end: FrameEnd) => {
        taken.frame.close();
        const { written } = taken;
        if (end.is === 'dropped' && end.why === 'failed') taken.deliver!.reject(end.error);
        else if (end.is === 'shown' && written?.bitmap)
          taken.deliver!.resolve(transfer({ bitmap: written.bitmap, report: written.report }, [written.bitmap]));
        else taken.deliver!.resolve(null);
      },
    };
  }

  async #run(
    reader: ReadableStreamDefaultReader<VideoFrame>,
    writer: WritableStreamDefaultWriter<VideoFrame>,
    scheduler: FrameScheduler<Taken, ModelInput, Made>,
  ): Promise<void> {
    try {
      for (;;) {
        const { value: frame, done } = await reader.read();
        if (done) break;
        this.#open++;
        const [width, height] = frameSize(frame);
        const read = performance.now();
        // The frame's own timestamp; where the track gives none (WebKit's track processor stamps every
        // frame with the lowest 64-bit integer), the time it was read, on this worker's clock, in its units.
        const timestamp = Number.isSafeInteger(frame.timestamp) ? frame.timestamp : Math.round(read * 1000);
        const taken: Taken = {
          frame,
          source: frame,
          copy: null,
          read,
          timestamp,
          width,
          height,
          stages: {},
        };
        if (!(await scheduler.offer(taken, timestamp))) break;
      }
    } catch (error) {
      scheduler.fail(error);
    } finally {
      await scheduler.end();
      await writer.close().catch(() => undefined);
      const failed = scheduler.error;
      this.#events.ended(failed === null || this.#stopped ? undefined : serializeError(failed.error));
    }
  }

  /** Composites a taken frame with its masks and writes the result (its report kept, to send once the frame is closed); false once stopped. */
  async #write(taken: Taken, shown: Shown<Made>, writer: WritableStreamDefaultWriter<VideoFrame>): Promise<boolean> {
    if (this.#stopped) return false;
    const { timestamp } = taken;
    const { canvas, report } = this.#composite(taken, shown);
    // Alpha only for the cutout: an opaque frame stays opaque for encoders and peer connections.
    const t0 = performance.now();
    const out = new VideoFrame(canvas, { timestamp, alpha: this.#settings.effect === 'cutout' ? 'keep' : 'discard' });
    try {
      await writer.write(out);
    } finally {
      // The generator's sink took it; a relay's port has sent its copy by now (a no-op when closed).
      out.close();
    }
    report.stages!.write = performance.now() - t0;
    report.latency = performance.now() - taken.read;
    this.#paced(report);
    taken.written = { report };
    return true;
  }

  /** Closes a frame read from the input, once (a carried frame may be dropped before its turn comes). */
  #close(frame: VideoFrame): void {
    if (this.#closed.has(frame)) return;
    this.#closed.add(frame);
    frame.close();
    this.#open--;
  }

  /**
   * What a taken frame is drawn from from now on (once a copy, its copy). A camera lends few frames, and one
   * the page holds holds back its next ones (Chromium's capture gave 30 frames/s, not 60, with two held
   * 50 ms), so each frame kept is converted once into an RGB copy of its own, from the pool, and closed;
   * the model's input, the guide and the compositor draw from the copy. Canvas 2D reads its frames on the
   * CPU, where every draw of a camera frame converts all its pixels from YUV, even a small one: its copies
   * are kept in memory. The WebGL2 compositor uploads its frame as a texture: its copies are canvases the
   * browser may keep on the GPU (a GPU copy, which replaces the one it made of each camera frame before
   * uploading it), so nothing is read back. Bitmaps (the frames path) are not copied.
   */
  #copy(taken: Taken): FrameCopy {
    const { frame, width, height } = taken;
    if (taken.source !== frame || frame instanceof ImageBitmap) return taken.source;
    const onCpu = this.#compositorFor(this.#settings).kind === 'canvas2d';
    const t0 = performance.now();
    const ctx = canvas2d(this.#pool.pop() ?? null, width, height, onCpu);
    ctx.drawImage(frame, 0, 0, width, height);
    this.#close(frame);
    taken.stages.copy = performance.now() - t0;
    [taken.source, taken.copy] = [ctx.canvas, ctx];
    return ctx.canvas;
  }

  /** Done with a taken frame: closed (once), and its copy back in the pool. */
  #release(taken: Taken): void {
    if (!(taken.frame instanceof ImageBitmap)) this.#close(taken.frame);
    if (taken.copy) this.#pool.push(taken.copy);
    taken.copy = null;
  }

  /**
   * The network input and the guide, drawn from the frame (its copy, taken now where the compositor draws
   * from copies and it has none yet), with the settings of the moment.
   */
  #prepare(taken: Taken): ModelInput {
    const source = this.#copy(taken);
    const { width, height, timestamp } = taken;
    const settings = this.#settings;
    const t0 = performance.now();
    const { tensor, meta } = this.#input.prepare(source, width, height, this.#model.spec.preprocess);
    const t1 = performance.now();
    const plain = settings.effect === 'none' || settings.effect === 'overlay';
    const guide = plain ? null : this.#guideOf(source, width, height);
    [taken.stages.prepare, taken.stages.guide] = [t1 - t0, performance.now() - t1];
    return { request: { tensor, meta, confidence: settings.confidence, smoothing: settings.smoothing, guide }, timestamp };
  }

  /** The frame at 1/maskFactor of its size, RGBA: what the coverage is refined against (and comes at). */
  #guideOf(frame: FrameCopy, width: number, height: number) {
    const factor = maskFactor(width, height);
    const [mw, mh] = [Math.ceil(width / factor), Math.ceil(height / factor)];
    const ctx = (this.#guide = canvas2d(this.#guide, mw, mh));
    ctx.drawImage(frame, 0, 0, mw, mh);
    return { data: ctx.getImageData(0, 0, mw, mh).data, width: mw, height: mh, frameWidth: width, frameHeight: height };
  }

  /** Draws a taken frame (its pixels: its `source`) with the effect, from the masks it is shown with. */
  #composite(
    { timestamp, width, height, source, stages }: Taken,
    { masks: { masks, meta, timestamp: made, roundTrip }, failure, carried }: Shown<Made>,
  ): { canvas: OffscreenCanvas; report: FrameReport } {
    const settings = this.#settings;
    const scheduler = this.#scheduler!;
    const { grid, coverage } = masks;
    // How much older than this frame the one its masks were made from is (µs → ms).
    const report: FrameReport = {
      dropped: scheduler.dropped,
      waiting: scheduler.waiting,
      stages,
      maskAge: Math.max(0, timestamp - made) / 1000,
    };
    // The page moves the effect to the next backend, as a failed call is moved (the model's worker stays).
    if (failure !== undefined) [report.reused, report.failure] = [true, serializeError(failure)];
    if (carried) report.carried = true;
    // Each frame's own masks go to onMask; a carried frame's were the frame's before it, reported with that
    // one, unless no frame showed them yet (waitForMask: false), and then with that frame's timestamp.
    const fresh = masks !== this.#maskSent;
    if (settings.masks && (!carried || fresh)) {
      report.mask = { classIds: grid.classIds.slice(), width: grid.width, height: grid.height, timestamp: carried ? made : timestamp };
    }
    if (fresh) {
      report.fresh = true;
      Object.assign(stages, { model: roundTrip, ...masks.timings });
    }
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
    stages.composite = performance.now() - t0;
    return { canvas, report };
  }

  /** What compositing and writing a frame on new masks cost this loop (waitForMask 'auto'). */
  #paced({ fresh, stages }: FrameReport): void {
    if (fresh) this.#scheduler!.pace.composite((stages?.composite ?? 0) + (stages?.write ?? 0));
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

/** A frame the loop took: a camera's VideoFrame (read from a stream: the streams and track paths) or a bitmap the page sent (the frames path). */
interface Taken {
  /** Closed at once where it was copied, else once written or dropped. */
  frame: VideoFrame | ImageBitmap;
  /** Its pixels: its copy, or the frame. */
  source: FrameCopy;
  /** Its copy (back in the pool once the frame is written or dropped). */
  copy: OffscreenCanvasRenderingContext2D | null;
  /** When it was read (ms): its latency counts from then. */
  read: number;
  timestamp: number;
  width: number;
  height: number;
  /** Where its time went so far (see `VideoStages`). */
  stages: Partial<VideoStages>;
  /** Once written: its report (and, on the frames path, the composited frame). */
  written?: Written;
  /** The frames path: the page's call, answered with the composited frame (null: not shown). */
  deliver?: { resolve(shown: { bitmap: ImageBitmap; report: FrameReport } | null): void; reject(error: unknown): void };
}

/** A frame's network input, and the timestamp of the frame it was drawn from. */
interface ModelInput {
  request: MaskRequest;
  timestamp: number;
}

/** A frame written: its report (and, on the frames path, the composited frame for the page). */
interface Written {
  report: FrameReport;
  bitmap?: ImageBitmap;
}

/** A model run's result: the masks, the preprocessing they came through, and the timestamp of the frame they were made from. */
interface Made {
  masks: FrameMasks;
  meta: PreprocessMeta;
  timestamp: number;
  /** The round trip to the model, ms (its masks made after it). */
  roundTrip: number;
}

const noop = () => undefined;

const frameSize = (frame: LiveFrame): [number, number] =>
  frame instanceof ImageBitmap ? [frame.width, frame.height] : [frame.displayWidth, frame.displayHeight];

function sceneEffect(settings: VideoSettings): SceneEffect {
  switch (settings.effect) {
    case 'blur':
      return { kind: 'blur', strength: settings.blur };
    case 'image':
      return settings.image ? { kind: 'image', image: settings.image } : { kind: 'color', color: settings.color };
    case 'cutout':
      return { kind: 'cutout' };
    default:
      return { kind: 'color', color: settings.color };
  }
}

// The frame loop, in the model's worker: read a frame, segment it on the fast path, smooth and refine its
// mask, composite the effect, write it. A frame that comes while one is being processed is closed and
// counted, never queued; every frame read is closed, whatever happens to it.
import { transfer } from 'comlink';
import { classColors } from '../model/colors.js';
import type { ModelSpec } from '../model/index.js';
import type { RunModel } from '../pipeline/index.js';
import { serializeError } from '../runtime/error-transfer.js';
import type { Compositor, SceneEffect } from './compositor.js';
import { createCompositor } from './create-compositor.js';
import { refineCoverage } from './edge-refinement.js';
import { MASK_FACTOR, parseHexColor } from './effect.js';
import { canvas2d, FrameInput, gridMap, subjectGrid, subjectGridFromDevice, type LiveFrame, type SubjectGrid } from './fast-path.js';
import type { FrameReport, VideoEvents, VideoSettings, VideoStarted, VideoStartRequest } from './protocol.js';
import { TemporalSmoother } from './temporal-smoothing.js';

/** The model as the loop needs it: its spec and a run of the network. */
export interface VideoModel {
  spec: ModelSpec;
  run: RunModel;
}

export class VideoSession {
  readonly #model: VideoModel;
  readonly #events: VideoEvents;
  #settings: VideoSettings;
  readonly #input = new FrameInput();
  readonly #smoother = new TemporalSmoother();
  #compositor: Compositor | null = null;
  readonly #plain: OffscreenCanvasRenderingContext2D;
  #guideLow: OffscreenCanvasRenderingContext2D | null = null;
  #guideHigh: OffscreenCanvasRenderingContext2D | null = null;
  #overlay: OffscreenCanvasRenderingContext2D | null = null;
  #overlayImage: ImageData | null = null;
  readonly #colours: [number, number, number][];
  #grid: SubjectGrid | null = null;
  #smoothed: Uint8Array | undefined;
  #coverage: Uint8Array | undefined;
  #dropped = 0;
  /** Frames read from the input and not closed yet (a leak check: it is 0 between frames). */
  #open = 0;
  #busy = false;
  #stopped = false;
  #reader: ReadableStreamDefaultReader<VideoFrame> | null = null;
  #loop: Promise<void> | null = null;

  constructor(model: VideoModel, settings: VideoSettings, events: VideoEvents) {
    this.#model = model;
    this.#settings = settings;
    this.#events = events;
    this.#plain = new OffscreenCanvas(1, 1).getContext('2d')!;
    this.#colours = classColors(model.spec).map((hex) => [...parseHexColor(hex)] as [number, number, number]);
  }

  start(request: VideoStartRequest): VideoStarted {
    const compositor = this.#compositorFor(this.#settings).kind;
    const { input } = request;
    if (input.kind === 'streams') this.#loop = this.#run(input.readable, input.writable, input.frameRate);
    return { compositor };
  }

  update(settings: VideoSettings): void {
    const old = this.#settings;
    if (old.image && old.image !== settings.image) old.image.close();
    this.#settings = settings;
  }

  /** The `main-thread` path: one frame, composited, as a bitmap (the frame is closed). */
  async frame(frame: LiveFrame): Promise<{ bitmap: ImageBitmap; report: FrameReport }> {
    const t0 = performance.now();
    try {
      const { canvas, report } = await this.#render(frame);
      const bitmap = canvas.transferToImageBitmap();
      report.latency = performance.now() - t0;
      return transfer({ bitmap, report }, [bitmap]);
    } finally {
      frame.close();
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#reader?.cancel().catch(() => undefined);
    await this.#loop;
    this.#compositor?.dispose();
    this.#compositor = null;
    this.#settings.image?.close();
  }

  async #run(readable: ReadableStream<VideoFrame>, writable: WritableStream<VideoFrame>, frameRate?: number): Promise<void> {
    const reader = (this.#reader = readable.getReader());
    const writer = writable.getWriter();
    // Busy from a frame's read until its result is handed to the writer (writes queue in order there).
    let busy = false;
    let pending: Promise<void> = Promise.resolve();
    let failure: unknown;
    // The track processor keeps one frame and discards older ones while this thread runs the model: those
    // are counted from the gap between timestamps (in µs) at the input's frame rate.
    const interval = frameRate && frameRate > 0 ? 1e6 / frameRate : 0;
    let last: number | null = null;
    try {
      for (;;) {
        const { value: frame, done } = await reader.read();
        if (done) break;
        this.#open++;
        if (interval && last !== null) this.#dropped += Math.max(0, Math.round((frame.timestamp - last) / interval) - 1);
        last = frame.timestamp;
        if (this.#stopped || failure !== undefined) {
          this.#close(frame);
          break;
        }
        if (busy) {
          this.#close(frame);
          this.#dropped++;
          this.#events.frame({ dropped: this.#dropped, openFrames: this.#open });
          continue;
        }
        busy = true;
        pending = this.#one(frame, writer, () => (busy = false)).catch((error: unknown) => {
          // The loop ends on the next read; the reader is cancelled so that it does not wait for one.
          failure = error;
          void reader.cancel().catch(() => undefined);
        });
      }
      await pending;
    } catch (error) {
      failure ??= error;
    } finally {
      await writer.close().catch(() => undefined);
      this.#events.ended(failure === undefined || this.#stopped ? undefined : serializeError(failure));
    }
  }

  /** Renders `frame`, closes it, calls `release` as the result goes to the writer, and reports the frame. */
  async #one(frame: VideoFrame, writer: WritableStreamDefaultWriter<VideoFrame>, release: () => void): Promise<void> {
    const t0 = performance.now();
    let out: VideoFrame;
    let report: FrameReport;
    try {
      const rendered = await this.#render(frame);
      // Alpha only for the cutout: an opaque frame stays opaque for encoders and peer connections.
      out = new VideoFrame(rendered.canvas, { timestamp: frame.timestamp, alpha: this.#settings.effect === 'cutout' ? 'keep' : 'discard' });
      report = rendered.report;
    } finally {
      this.#close(frame);
      release();
    }
    try {
      await writer.write(out);
    } finally {
      // The generator's sink took it; a relay's port has sent its copy by now (a no-op when closed).
      out.close();
    }
    report.latency = performance.now() - t0;
    report.openFrames = this.#open;
    this.#events.frame(report);
  }

  #close(frame: VideoFrame): void {
    frame.close();
    this.#open--;
  }

  /** Segments `frame` and draws it with the effect; the frame stays the caller's. */
  async #render(frame: LiveFrame): Promise<{ canvas: OffscreenCanvas; report: FrameReport }> {
    if (this.#busy) throw new Error('one frame at a time');
    this.#busy = true;
    try {
      return await this.#renderNow(frame);
    } finally {
      this.#busy = false;
    }
  }

  async #renderNow(frame: LiveFrame): Promise<{ canvas: OffscreenCanvas; report: FrameReport }> {
    const settings = this.#settings;
    const [width, height] = frame instanceof ImageBitmap ? [frame.width, frame.height] : [frame.displayWidth, frame.displayHeight];
    const { spec } = this.#model;
    const { tensor, meta } = this.#input.prepare(frame, width, height, spec.preprocess);
    const report: FrameReport = { dropped: this.#dropped };
    let grid: SubjectGrid;
    try {
      const logits = await this.#model.run({ data: tensor, dims: [1, 3, meta.inputHeight, meta.inputWidth] });
      grid =
        'classIds' in logits
          ? await subjectGridFromDevice(logits, meta, spec.classNames.length, spec.backgroundClassId, settings.confidence)
          : subjectGrid(logits, spec.classNames.length, spec.backgroundClassId, settings.confidence, this.#grid ?? undefined);
      this.#grid = grid;
    } catch (error) {
      // The output keeps flowing on the last good mask; with none yet, the failure is the loop's.
      if (!this.#grid) throw error;
      grid = this.#grid;
      report.reused = true;
      // The page moves the effect to the next backend, as a failed call is moved (the model's worker stays).
      report.failure = serializeError(error);
    }
    const timestamp = frame instanceof ImageBitmap ? 0 : frame.timestamp;
    if (settings.masks) report.mask = { classIds: grid.classIds.slice(), width: grid.width, height: grid.height, timestamp };

    const map = gridMap(meta, grid.width, grid.height);
    const { crop } = map;
    const low = (this.#guideLow = canvas2d(this.#guideLow, grid.width, grid.height));
    low.fillStyle = '#000';
    low.fillRect(0, 0, grid.width, grid.height);
    low.drawImage(
      frame,
      crop.x,
      crop.y,
      crop.width,
      crop.height,
      crop.x * map.scaleX + map.offsetX,
      crop.y * map.scaleY + map.offsetY,
      crop.width * map.scaleX,
      crop.height * map.scaleY,
    );
    const guideLow = low.getImageData(0, 0, grid.width, grid.height).data;
    this.#smoothed = this.#smoother.smooth(grid.probability, guideLow, grid.width, grid.height, settings.smoothing, this.#smoothed);

    if (settings.effect === 'none' || settings.effect === 'overlay')
      return { canvas: this.#plainFrame(frame, width, height, grid, map), report };
    const [mw, mh] = [Math.ceil(width / MASK_FACTOR), Math.ceil(height / MASK_FACTOR)];
    const high = (this.#guideHigh = canvas2d(this.#guideHigh, mw, mh));
    high.drawImage(frame, 0, 0, mw, mh);
    const guideHigh = high.getImageData(0, 0, mw, mh).data;
    const probability = { probability: this.#smoothed, width: grid.width, height: grid.height };
    this.#coverage = refineCoverage(probability, map, guideLow, guideHigh, mw, mh, width, height, this.#coverage);
    const compositor = this.#compositorFor(settings);
    compositor.render(frame, { coverage: this.#coverage, width, height }, sceneEffect(settings));
    return { canvas: compositor.canvas as OffscreenCanvas, report };
  }

  /** `none`: the frame as it is; `overlay`: each class's colour over it, half opaque. */
  #plainFrame(frame: LiveFrame, width: number, height: number, grid: SubjectGrid, map: ReturnType<typeof gridMap>): OffscreenCanvas {
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

// The model's half of the live-video loop: a frame's network input → the subject grid, then smoothed over
// time and refined against the frame into the compositor's coverage. The grid is made where the model runs:
// in the loop's own thread (`localVideoModel`), or in the model's worker, served to a loop in another worker
// (`serveVideoModel` / `remoteVideoModel`) so that the next frame is at the model while one is composited.
// The coverage is made in the loop's thread, so that the model's worker takes the next frame meanwhile.
import { expose, releaseProxy, transfer, wrap, type Remote } from 'comlink';
import { BackendError } from '../errors/index.js';
import { Ending } from '../runtime/ending.js';
import type { ModelSpec } from '../model/index.js';
import type { PreprocessMeta, RunModel } from '../pipeline/index.js';
import { bilinearCells } from '../pipeline/kernels.js';
import { refineCoverage } from './edge-refinement.js';
import { gridMap, subjectGrid, subjectGridFromDevice, type GridMap, type SubjectGrid } from './fast-path.js';
import { TemporalSmoother } from './temporal-smoothing.js';

/** The frame at the coverage's size (RGBA), which guides smoothing and refinement. */
export interface FrameGuide {
  data: Uint8ClampedArray;
  width: number;
  height: number;
  /** The frame's own size. */
  frameWidth: number;
  frameHeight: number;
}

/** One frame's network input, and what to make of its output. */
export interface MaskRequest {
  tensor: Float32Array;
  meta: PreprocessMeta;
  confidence: number;
  /** 0–1: how much of the past a still cell keeps (temporal smoothing). */
  smoothing: number;
  /** Present when the effect needs the coverage (not for `none` or `overlay`). */
  guide: FrameGuide | null;
}

/** One frame's masks: the grid (class ids, probability) and, where a guide was given, the refined coverage at the guide's size. */
export interface FrameMasks {
  grid: SubjectGrid;
  coverage: Uint8Array | null;
  /** Where the frame's masks took their time, ms. */
  timings: ModelTimings;
}

/** A frame's masks' time, ms: the network and its output to the grid (in the model's worker), smoothing and refinement (in the loop's). */
export interface ModelTimings {
  run: number;
  grid: number;
  refine: number;
}

/**
 * The model as the loop needs it: its spec; a frame's grid from the network (where the model runs, one
 * run at a time); and its masks from the grid, made in the loop's thread (smoothed over time: in the
 * order of the frames), while the model takes the next frame.
 */
export interface VideoModel {
  spec: ModelSpec;
  grid(request: MaskRequest): Promise<FrameGrid>;
  masks(grid: FrameGrid, request: MaskRequest): FrameMasks;
  /** Lets go of the model: a request still awaited rejects (its worker may have died and never answer). */
  close?(): void;
}

/** One frame's grid, and the time the model's thread spent on it. */
export interface FrameGrid {
  grid: SubjectGrid;
  timings: Pick<ModelTimings, 'run' | 'grid'>;
}

/** A frame's grid from the network: one run at a time, in order. */
function gridMaker(spec: ModelSpec, run: RunModel): (request: GridRequest) => Promise<FrameGrid> {
  // One frame at a time: a session runs one input at once.
  let queue: Promise<unknown> = Promise.resolve();
  return (request) => {
    const result = queue.then(() => gridOf(request));
    queue = result.catch(() => undefined);
    return result;
  };

  async function gridOf({ tensor, meta, confidence }: GridRequest): Promise<FrameGrid> {
    const t0 = performance.now();
    const logits = await run({ data: tensor, dims: [1, 3, meta.inputHeight, meta.inputWidth] });
    const t1 = performance.now();
    const [classes, background] = [spec.classNames.length, spec.backgroundClassId];
    const grid =
      'classIds' in logits
        ? await subjectGridFromDevice(logits, meta, classes, background, confidence)
        : subjectGrid(logits, classes, background, confidence);
    return { grid, timings: { run: t1 - t0, grid: performance.now() - t1 } };
  }
}

/**
 * A frame's coverage from its grid: smoothed over time and refined against the frame. It runs in the
 * frame loop's thread, so that the model's worker is free for the next frame meanwhile; the smoothing
 * state carries from frame to frame (frames come in order: the loop makes one model call at a time).
 */
function coverageMaker(): (grid: FrameGrid, request: MaskRequest) => FrameMasks {
  const smoother = new TemporalSmoother();
  // The frame at the grid's size, rewritten for each frame (nothing keeps it past the call).
  let low: Uint8ClampedArray | undefined;
  return ({ grid, timings }, { meta, smoothing, guide }) => {
    if (!guide) return { grid, coverage: null, timings: { ...timings, refine: 0 } };
    const t0 = performance.now();
    const map = gridMap(meta, grid.width, grid.height);
    low = guideAtGrid(guide, map, grid.width, grid.height, low);
    const smoothed = smoother.smooth(grid.probability, low, grid.width, grid.height, smoothing);
    const probability = { probability: smoothed, width: grid.width, height: grid.height };
    const coverage = refineCoverage(probability, map, low, guide.data, guide.width, guide.height, guide.frameWidth, guide.frameHeight);
    return { grid, coverage, timings: { ...timings, refine: performance.now() - t0 } };
  };
}

/** What the model's worker needs of a frame: its input, and the confidence for its class ids. */
type GridRequest = Pick<MaskRequest, 'tensor' | 'meta' | 'confidence'>;

/** The model in this thread (the loop runs in the model's worker). Each result is new. */
export function localVideoModel(spec: ModelSpec, run: RunModel): VideoModel {
  return { spec, grid: gridMaker(spec, run), masks: coverageMaker() };
}

interface GridService {
  grid(request: GridRequest): Promise<FrameGrid>;
}

/** Serves `run` to a loop in another worker, over `port`: each frame's grid, transferred, not copied. */
export function serveVideoModel(spec: ModelSpec, run: RunModel, port: MessagePort): void {
  const grids = gridMaker(spec, run);
  const service: GridService = {
    async grid(request) {
      const result = await grids(request);
      return transfer(result, [result.grid.probability.buffer, result.grid.classIds.buffer]);
    },
  };
  expose(service, port);
}

/**
 * The model of another worker, served there by `serveVideoModel`: the grid comes from there, the coverage
 * is made here (while the model's worker runs the next frame).
 */
export function remoteVideoModel(spec: ModelSpec, port: MessagePort): VideoModel {
  const remote: Remote<GridService> = wrap<GridService>(port);
  const released = new Ending();
  return {
    spec,
    grid: ({ tensor, meta, confidence }) => released.guard(remote.grid(transfer({ tensor, meta, confidence }, [tensor.buffer]))),
    masks: coverageMaker(),
    close() {
      released.end(new BackendError('DISPOSED', 'the video loop stopped'));
      remote[releaseProxy]();
      port.close();
    },
  };
}

/**
 * The frame at the grid's resolution, from the guide: each cell takes the guide bilinearly at its centre
 * (which averages camera noise as a canvas's downscale did); cells outside the map's crop are black. Into
 * `reuse` where it has the size (every byte is written).
 */
export function guideAtGrid(guide: FrameGuide, map: GridMap, gw: number, gh: number, reuse?: Uint8ClampedArray): Uint8ClampedArray {
  const out = reuse?.length === gw * gh * 4 ? reuse : new Uint8ClampedArray(gw * gh * 4);
  const { crop } = map;
  const [kx, ky] = [guide.width / guide.frameWidth, guide.height / guide.frameHeight];
  // Per axis: the first of the two guide pixels under each cell's centre (−1 outside the crop), the step to
  // the second (0 where the guide is one pixel across, or at its last pixel), and the second one's weight.
  const axis = (count: number, scale: number, offset: number, from: number, to: number, size: number, k: number) => {
    const first = new Int32Array(count).fill(-1);
    const step = new Int32Array(count);
    const weight = new Float32Array(count);
    for (let i = 0; i < count; i++) {
      const f = (i + 0.5 - offset) / scale;
      if (!(f >= from && f < to)) continue;
      const g = Math.min(size - 1, Math.max(0, f * k - 0.5));
      first[i] = Math.min(size - 2, Math.floor(g));
      weight[i] = g - first[i]!;
      if (size === 1) [first[i], weight[i]] = [0, 0];
      step[i] = size > 1 && first[i]! < size - 1 ? 1 : 0;
    }
    return { first, step, weight };
  };
  const xs = axis(gw, map.scaleX, map.offsetX, crop.x, crop.x + crop.width, guide.width, kx);
  const ys = axis(gh, map.scaleY, map.offsetY, crop.y, crop.y + crop.height, guide.height, ky);
  bilinearCells(guide.data, guide.width, xs, ys, out);
  return out;
}

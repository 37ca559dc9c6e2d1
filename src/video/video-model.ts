// The model's half of the live-video loop: a frame's network input → the subject grid, smoothed over time
// and refined against the frame into the compositor's coverage. It runs where the model runs: in the
// loop's own thread (`localVideoModel`), or in the model's worker, served to a loop in another worker
// (`serveVideoModel` / `remoteVideoModel`) so that the next frame is at the model while one is composited.
import { expose, releaseProxy, transfer, wrap, type Remote } from 'comlink';
import { BackendError } from '../errors/index.js';
import { Ending } from '../runtime/ending.js';
import type { ModelSpec } from '../model/index.js';
import type { PreprocessMeta, RunModel } from '../pipeline/index.js';
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
}

/** The model as the loop needs it: its spec, and a frame's masks. */
export interface VideoModel {
  spec: ModelSpec;
  masks(request: MaskRequest): Promise<FrameMasks>;
  /** Lets go of the model: a request still awaited rejects (its worker may have died and never answer). */
  close?(): void;
}

/**
 * The model in this thread. Each result is new (the loop composites one frame while the next one's masks
 * are made); the smoothing state carries from frame to frame.
 */
export function localVideoModel(spec: ModelSpec, run: RunModel): VideoModel {
  const smoother = new TemporalSmoother();
  // One frame at a time: a session runs one input at once, and the smoothing takes frames in order.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    spec,
    masks(request) {
      const result = queue.then(() => masksOf(request));
      queue = result.catch(() => undefined);
      return result;
    },
  };

  async function masksOf({ tensor, meta, confidence, smoothing, guide }: MaskRequest): Promise<FrameMasks> {
    const logits = await run({ data: tensor, dims: [1, 3, meta.inputHeight, meta.inputWidth] });
    const [classes, background] = [spec.classNames.length, spec.backgroundClassId];
    const grid =
      'classIds' in logits
        ? await subjectGridFromDevice(logits, meta, classes, background, confidence)
        : subjectGrid(logits, classes, background, confidence);
    if (!guide) return { grid, coverage: null };
    const map = gridMap(meta, grid.width, grid.height);
    const low = guideAtGrid(guide, map, grid.width, grid.height);
    const smoothed = smoother.smooth(grid.probability, low, grid.width, grid.height, smoothing);
    const probability = { probability: smoothed, width: grid.width, height: grid.height };
    const coverage = refineCoverage(probability, map, low, guide.data, guide.width, guide.height, guide.frameWidth, guide.frameHeight);
    return { grid, coverage };
  }
}

type MaskService = Pick<VideoModel, 'masks'>;

/** Serves `run` to a loop in another worker, over `port`; the masks are transferred, not copied. */
export function serveVideoModel(spec: ModelSpec, run: RunModel, port: MessagePort): void {
  const model = localVideoModel(spec, run);
  const service: MaskService = {
    async masks(request) {
      const result = await model.masks(request);
      const buffers = [result.grid.probability.buffer, result.grid.classIds.buffer, ...(result.coverage ? [result.coverage.buffer] : [])];
      return transfer(result, buffers);
    },
  };
  expose(service, port);
}

/** The model of another worker, served there by `serveVideoModel`. */
export function remoteVideoModel(spec: ModelSpec, port: MessagePort): VideoModel {
  const remote: Remote<MaskService> = wrap<MaskService>(port);
  const released = new Ending();
  return {
    spec,
    masks: (request) => {
      const buffers = [request.tensor.buffer, ...(request.guide ? [request.guide.data.buffer] : [])];
      return released.guard(remote.masks(transfer(request, buffers)));
    },
    close() {
      released.end(new BackendError('DISPOSED', 'the video loop stopped'));
      remote[releaseProxy]();
      port.close();
    },
  };
}

/**
 * The frame at the grid's resolution, from the guide: each cell takes the guide bilinearly at its centre
 * (which averages camera noise as a canvas's downscale did); cells outside the map's crop are black.
 */
export function guideAtGrid(guide: FrameGuide, map: GridMap, gw: number, gh: number): Uint8ClampedArray {
  const out = new Uint8ClampedArray(gw * gh * 4);
  const { crop } = map;
  const [kx, ky] = [guide.width / guide.frameWidth, guide.height / guide.frameHeight];
  // Per axis: the first of the two guide pixels under each cell's centre, and the second one's weight.
  const axis = (count: number, scale: number, offset: number, from: number, to: number, size: number, k: number) => {
    const first = new Int32Array(count).fill(-1);
    const weight = new Float32Array(count);
    for (let i = 0; i < count; i++) {
      const f = (i + 0.5 - offset) / scale;
      if (!(f >= from && f < to)) continue;
      const g = Math.min(size - 1, Math.max(0, f * k - 0.5));
      first[i] = Math.min(size - 2, Math.floor(g));
      weight[i] = g - first[i]!;
      if (size === 1) [first[i], weight[i]] = [0, 0];
    }
    return { first, weight };
  };
  const xs = axis(gw, map.scaleX, map.offsetX, crop.x, crop.x + crop.width, guide.width, kx);
  const ys = axis(gh, map.scaleY, map.offsetY, crop.y, crop.y + crop.height, guide.height, ky);
  const { data, width } = guide;
  const next = (n: number, first: number) => (n > 1 && first < n - 1 ? 1 : 0);
  for (let y = 0; y < gh; y++) {
    const fy = ys.first[y]!;
    const wy = ys.weight[y]!;
    const row0 = fy * width;
    const row1 = (fy + next(guide.height, fy)) * width;
    for (let x = 0, o = y * gw * 4; x < gw; x++, o += 4) {
      out[o + 3] = 255;
      const fx = xs.first[x]!;
      if (fy < 0 || fx < 0) continue;
      const wx = xs.weight[x]!;
      const dx = next(guide.width, fx);
      const [a, b, c, d] = [(row0 + fx) * 4, (row0 + fx + dx) * 4, (row1 + fx) * 4, (row1 + fx + dx) * 4];
      for (let ch = 0; ch < 3; ch++) {
        const top = data[a + ch]! + wx * (data[b + ch]! - data[a + ch]!);
        const bottom = data[c + ch]! + wx * (data[d + ch]! - data[c + ch]!);
        out[o + ch] = top + wy * (bottom - top);
      }
    }
  }
  return out;
}

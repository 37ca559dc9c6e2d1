// A still's soft alpha: the subject's probability at the network's resolution, upsampled to the image
// with the joint bilateral upsampling that live video uses, guided by the image's own pixels, so that the
// edge follows the picture's edge instead of the network's coarse grid.
import { gridMap, refineCoverage, type GridMap } from './edge-refinement.js';
import { VirtualUpsampledLogits } from './onnx-linear-resize.js';
import { subjectGrid } from './subject-probability.js';
import type { Logits, PixelImage, PostprocessOptions, PreprocessMeta } from './types.js';

/** Probability bytes this close to 0 or 255 are taken as 0 or 255 (an alpha off by at most this much). */
const SURE = 3;

/**
 * The subject's alpha (0–255) at the image's size: 255 where the model is sure the pixel is not
 * background, 0 where it is sure it is, and in between along the edge, which follows the image's colours.
 * The probability is 1 − p(background) for a model with a background channel, σ(logit) for a one-channel
 * (sigmoid) model, and the top class's probability for a model with no background channel; a cell below
 * the confidence counts as under one half, as the class ids do. Where the image is not the logits' own
 * (a static crop), pixels outside the crop are 0.
 */
export function subjectAlpha(image: PixelImage, logits: Logits, meta: PreprocessMeta, options: PostprocessOptions): Uint8Array {
  // Logits that stand for their upsampling (a cut trailing Resize) are taken as that upsampling, so that
  // every backend refines the same grid.
  const plain = logits.upsample ? new VirtualUpsampledLogits(logits, logits.upsample.height, logits.upsample.width).materialise() : logits;
  const grid = subjectGrid(plain, options.classCount, options.backgroundClassId, options.confidence);
  // Within SURE levels of either end is the end: a network's near-certain cells differ in their last
  // bits. Snapped, a cutout's background is wholly transparent (not alpha 1 or 2 all over), and they make
  // the flat blocks that the refinement passes over (most of a photo).
  const { probability } = grid;
  for (let i = 0; i < probability.length; i++) {
    const v = probability[i]!;
    if (v <= SURE) probability[i] = 0;
    else if (v >= 255 - SURE) probability[i] = 255;
  }
  const map = gridMap(meta, grid.width, grid.height);
  const low = imageAtGrid(image, map, grid.width, grid.height);
  const { width, height } = image;
  return refineCoverage(grid, map, low, image.data, width, height, width, height, undefined, image.channels);
}

/**
 * The image at the grid's resolution (RGBA): each cell the mean of the pixels whose centres fall in it
 * (the area the network saw as that cell), or the pixel nearest its centre where none does (an image
 * smaller than the grid). Cells outside the crop (letterbox padding) are black.
 */
export function imageAtGrid(image: PixelImage, map: GridMap, gw: number, gh: number): Uint8ClampedArray {
  const { width, height, channels, data } = image;
  const { crop } = map;
  // Per pixel column (row): its cell, or −1 outside the grid or the crop.
  const cellOf = (count: number, scale: number, offset: number, lo: number, hi: number, cells: number) =>
    Int32Array.from({ length: count }, (_, i) => {
      const c = Math.floor((i + 0.5) * scale + offset);
      return i + 0.5 >= lo && i + 0.5 < hi && c >= 0 && c < cells ? c : -1;
    });
  const cx = cellOf(width, map.scaleX, map.offsetX, crop.x, crop.x + crop.width, gw);
  const cy = cellOf(height, map.scaleY, map.offsetY, crop.y, crop.y + crop.height, gh);
  const sums = new Float64Array(gw * gh * 3);
  const counts = new Uint32Array(gw * gh);
  for (let y = 0; y < height; y++) {
    const row = cy[y]!;
    if (row < 0) continue;
    for (let x = 0, p = y * width * channels; x < width; x++, p += channels) {
      const col = cx[x]!;
      if (col < 0) continue;
      const cell = row * gw + col;
      const at = cell * 3;
      sums[at] = sums[at]! + data[p]!;
      sums[at + 1] = sums[at + 1]! + data[p + 1]!;
      sums[at + 2] = sums[at + 2]! + data[p + 2]!;
      counts[cell] = counts[cell]! + 1;
    }
  }
  const out = new Uint8ClampedArray(gw * gh * 4);
  const pixelAt = (cell: number, scale: number, offset: number, size: number) =>
    Math.min(size - 1, Math.max(0, Math.floor((cell + 0.5 - offset) / scale)));
  for (let y = 0; y < gh; y++) {
    for (let x = 0; x < gw; x++) {
      const cell = y * gw + x;
      const o = cell * 4;
      out[o + 3] = 255;
      const n = counts[cell]!;
      if (n > 0) {
        for (let k = 0; k < 3; k++) out[o + k] = sums[cell * 3 + k]! / n;
        continue;
      }
      const fx = (x + 0.5 - map.offsetX) / map.scaleX;
      const fy = (y + 0.5 - map.offsetY) / map.scaleY;
      if (!(fx >= crop.x && fx < crop.x + crop.width && fy >= crop.y && fy < crop.y + crop.height)) continue;
      const p = (pixelAt(y, map.scaleY, map.offsetY, height) * width + pixelAt(x, map.scaleX, map.offsetX, width)) * channels;
      for (let k = 0; k < 3; k++) out[o + k] = data[p + k]!;
    }
  }
  return out;
}

// A still's cutout edge against the truth: scenes of shapes drawn at 4 × 4 samples a pixel and averaged
// down (test/fixtures/coverage-scenes.ts), so that each edge pixel's coverage is known, segmented by the
// bundled shapes model; in the same run, the mean |alpha − coverage| in a band around the edges for the
// hard mask, the hard mask feathered (`--feather 1`, `--feather 2`) and the soft alpha (`--cutout`'s
// default), and the soft alpha's cost.
//
//   npx tsx bench/cutout-edges.ts [--scenes 24] [--band 3] [--json out.json]
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { cutoutRgba, maskAlpha } from '../src/cli/cutout.js';
import { createSegmenter } from '../src/node/index.js';
import { bandError, coverageScene, edgeBand } from '../test/fixtures/coverage-scenes.js';
import { ms, summarize, table } from './stats.js';

const { values } = parseArgs({ options: { scenes: { type: 'string' }, band: { type: 'string' }, json: { type: 'string' } } });
const SCENES = Number(values.scenes ?? 24);
const BAND = Number(values.band ?? 3);
const SIZES: [number, number][] = [
  [512, 384],
  [1024, 768],
];

/** The alpha channel of a cutout: feathering as `--feather` does it. */
const feathered = (image: Parameters<typeof cutoutRgba>[0], alpha: Uint8Array, radius: number) =>
  cutoutRgba(image, alpha, radius).filter((_, i) => i % 4 === 3);

const seg = await createSegmenter({ model: 'shapes', numThreads: 1 });
const rows: (string | number)[][] = [];
const json: Record<string, unknown>[] = [];
for (const [width, height] of SIZES) {
  const errors = { hard: [] as number[], feather1: [] as number[], feather2: [] as number[], soft: [] as number[] };
  const [plainMs, softMs] = [[] as number[], [] as number[]];
  for (let i = 0; i < SCENES; i++) {
    const scene = coverageScene(2026, i, width, height);
    let t = performance.now();
    const plain = await seg.segmentRaw(scene.image);
    plainMs.push(performance.now() - t);
    t = performance.now();
    const { alpha } = await seg.segmentRaw(scene.image, { alpha: true });
    softMs.push(performance.now() - t);
    const hard = maskAlpha(plain.classIds, seg.spec.backgroundClassId);
    const band = edgeBand(scene.coverage, width, height, BAND);
    errors.hard.push(bandError(hard, scene.coverage, band));
    errors.feather1.push(bandError(feathered(scene.image, hard, 1), scene.coverage, band));
    errors.feather2.push(bandError(feathered(scene.image, hard, 2), scene.coverage, band));
    errors.soft.push(bandError(alpha, scene.coverage, band));
  }
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const [hard, f1, f2, soft] = [mean(errors.hard), mean(errors.feather1), mean(errors.feather2), mean(errors.soft)];
  const better = errors.soft.filter((e, k) => e < errors.hard[k]!).length;
  const [plain, withAlpha] = [summarize(plainMs).median, summarize(softMs).median];
  rows.push([
    `${width}×${height}`,
    SCENES,
    hard.toFixed(4),
    `${f1.toFixed(4)} (${(f1 / hard).toFixed(2)})`,
    `${f2.toFixed(4)} (${(f2 / hard).toFixed(2)})`,
    `${soft.toFixed(4)} (${(soft / hard).toFixed(2)})`,
    `${better} of ${SCENES}`,
    `${ms(plain)} → ${ms(withAlpha)}`,
  ]);
  json.push({
    width,
    height,
    scenes: SCENES,
    band: BAND,
    hard,
    feather1: f1,
    feather2: f2,
    soft,
    softBetter: better,
    plainMs: plain,
    alphaMs: withAlpha,
  });
}
await seg.dispose();

console.log(
  `Cutout edges: the bundled shapes model (native, 1 thread) on ${SCENES} scenes a size with known coverage; mean |alpha − coverage| over the pixels within ${BAND} px of an edge pixel (ratio to the hard mask's)\n`,
);
console.log(
  table(
    [
      'image',
      'scenes',
      'hard mask (--edges hard)',
      'hard, --feather 1',
      'hard, --feather 2',
      'soft alpha (--cutout)',
      'soft better than hard',
      'segmentRaw ms, median: without → with alpha',
    ],
    rows,
  ),
);
if (values.json) await writeFile(values.json, `${JSON.stringify(json, null, 2)}\n`);

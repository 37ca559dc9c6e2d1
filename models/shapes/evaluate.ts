// Accuracy of the shipped package, measured through edgeseg's own Node pipeline (decode, preprocess,
// onnxruntime-node, postprocess, PNG payload): per-class IoU, mean IoU, pixel accuracy, confusion matrix.
//
//   /usr/bin/python3 models/shapes/make_eval_sets.py     # once: the held-out scenes
//   npx tsx models/shapes/evaluate.ts [--model models/shapes/package] [--sets heldout,x2,half,jpeg]
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSegmenter, decodeMaskPng, rawFromPayload } from '../../src/node/index.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : fallback;
};

export interface SetResult {
  name: string;
  images: number;
  iou: number[];
  meanIou: number;
  pixelAccuracy: number;
  confusion: number[][];
}

export async function evaluate(modelDir: string, sets: string[]): Promise<{ classes: string[]; results: SetResult[] }> {
  const seg = await createSegmenter({ model: modelDir, numThreads: 2 });
  const classes = [...seg.classNames];
  const k = classes.length;
  const results: SetResult[] = [];
  for (const name of sets) {
    const folder = join(HERE, 'eval', name);
    const files = (await readdir(join(folder, 'images'))).filter((f) => f.endsWith('.png')).sort();
    const confusion = Array.from({ length: k }, () => new Array<number>(k).fill(0));
    for (const file of files) {
      // The whole path a user runs: encoded bytes in, the hosted route's payload out.
      const payload = await seg.segment(await readFile(join(folder, 'images', file)), { confidence: 50 });
      const predicted = rawFromPayload(payload).classIds;
      const truth = decodeMaskPng(new Uint8Array(await readFile(join(folder, 'masks', file)))).classIds;
      for (let p = 0; p < truth.length; p++) confusion[truth[p]!]![predicted[p]!]!++;
    }
    const iou = classes.map((_, c) => {
      const tp = confusion[c]![c]!;
      const fn = confusion[c]!.reduce((a, b) => a + b, 0) - tp;
      const fp = confusion.reduce((a, row) => a + row[c]!, 0) - tp;
      return tp / Math.max(tp + fn + fp, 1);
    });
    const total = confusion.flat().reduce((a, b) => a + b, 0);
    const correct = classes.reduce((a, _, c) => a + confusion[c]![c]!, 0);
    results.push({
      name,
      images: files.length,
      iou,
      meanIou: iou.reduce((a, b) => a + b, 0) / k,
      pixelAccuracy: correct / total,
      confusion,
    });
  }
  await seg.dispose();
  return { classes, results };
}

export function report({ classes, results }: Awaited<ReturnType<typeof evaluate>>): string {
  const pct = (v: number) => `${(100 * v).toFixed(1)}%`;
  const lines = [
    '| set | images | mean IoU | pixel accuracy | ' + classes.map((c) => `IoU ${c}`).join(' | ') + ' |',
    `|${'---|'.repeat(4 + classes.length)}`,
  ];
  for (const r of results)
    lines.push(
      `| ${r.name} | ${r.images} | ${r.meanIou.toFixed(4)} | ${pct(r.pixelAccuracy)} | ${r.iou.map((v) => v.toFixed(3)).join(' | ')} |`,
    );
  const held = results[0]!;
  lines.push('', `Confusion matrix on \`${held.name}\` (rows: truth, columns: prediction; share of each true class's pixels):`, '');
  lines.push(`| truth \\ predicted | ${classes.join(' | ')} |`, `|${'---|'.repeat(classes.length + 1)}`);
  held.confusion.forEach((row, c) => {
    const total = Math.max(
      1,
      row.reduce((a, b) => a + b, 0),
    );
    lines.push(`| ${classes[c]} | ${row.map((v) => `${((100 * v) / total).toFixed(1)}%`).join(' | ')} |`);
  });
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await evaluate(arg('model', join(HERE, 'package')), arg('sets', 'heldout,x2,half,jpeg').split(','));
  console.log(report(result));
}

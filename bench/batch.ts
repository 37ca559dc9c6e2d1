// Batch throughput in Node: segmentMany at several concurrencies against the loop a user writes without
// it (`for (const f of files) await seg.segment(f)`), same segmenter, same files, in one run.
//
//   npm run bench:batch [-- --size 1024x768 --rounds 3 --threads N]   (threads: the segmenter's default unless given)
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { createSegmenter } from '../src/node/index.js';
import { bundledModelDir } from '../src/node/bundled-model.js';
import { defaultThreads } from '../src/node/threads.js';
import { ROOT } from './paths.js';

const { values } = parseArgs({
  options: { size: { type: 'string', default: '1024x768' }, rounds: { type: 'string', default: '3' }, threads: { type: 'string' } },
});
const threads = values.threads === undefined ? defaultThreads() : Number(values.threads);
const [width, height] = values.size.split('x').map(Number) as [number, number];
const rounds = Number(values.rounds);

// The bundled model's sample scenes, scaled to the size asked for: JPEGs as photos come.
const samples = join(ROOT, 'models', 'shapes', 'samples', 'images');
const dir = await mkdtemp(join(tmpdir(), 'edgeseg-bench-batch-'));
const files: string[] = [];
for (const name of (await readdir(samples)).sort().slice(0, 40)) {
  const file = join(dir, name);
  await sharp(join(samples, name)).resize(width, height, { fit: 'fill' }).jpeg({ quality: 90 }).toFile(file);
  files.push(file);
}

const seg = await createSegmenter({ model: bundledModelDir(), numThreads: threads });
const ways: [string, () => Promise<void>][] = [
  [
    'for…of await segment()',
    async () => {
      for (const f of files) await seg.segment(f);
    },
  ],
  ...[1, 2, 4, 8].map((concurrency): [string, () => Promise<void>] => [
    `segmentMany, concurrency ${concurrency}`,
    async () => {
      for await (const r of seg.segmentMany(files, { concurrency })) if (!r.ok) throw r.error;
    },
  ]),
];
await ways[0]![1](); // warm-up
const best = new Map<string, number>();
for (let round = 0; round < rounds; round++) {
  // Interleaved, so that a busy moment of the machine does not fall on one way only.
  for (const [name, run] of ways) {
    const t = performance.now();
    await run();
    const rate = files.length / ((performance.now() - t) / 1000);
    best.set(name, Math.max(best.get(name) ?? 0, rate));
  }
}
await seg.dispose();
await rm(dir, { recursive: true, force: true });

const peer = best.get(ways[0]![0])!;
console.log(
  `${files.length} JPEGs ${width}×${height}, bundled shapes model, native, ${threads} thread(s) for the model, ${availableParallelism()} cores, best of ${rounds}`,
);
console.log('| way | images/s | × the loop |\n|---|---:|---:|');
for (const [name] of ways) console.log(`| ${name} | ${best.get(name)!.toFixed(1)} | ${(best.get(name)! / peer).toFixed(2)} |`);

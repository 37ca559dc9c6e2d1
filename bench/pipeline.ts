// The time of each stage of edgeseg in Node (decode, preprocess, run, postprocess, encode) for a
// 1024×768 and a 4032×3024 JPEG, with a 5-class and a 21-class model, on onnxruntime-node and on
// onnxruntime-web's WASM build.
//
//   npm run bench:pipeline [-- --runs 20]
import { readFile } from 'node:fs/promises';
import { createSegmenter, type NodeBackendName, type Timings } from '../src/node/index.js';
import { imagePath, MODELS, requireBenchModels } from './paths.js';
import { spread, summarize, table } from './stats.js';

export interface PipelineRow {
  model: string;
  image: string;
  backend: NodeBackendName;
  confidence: number;
  stages: Record<keyof Timings | 'total', ReturnType<typeof summarize>>;
}

export async function benchPipeline(runs = 20, warmup = 3, threads = 2): Promise<PipelineRow[]> {
  requireBenchModels();
  const rows: PipelineRow[] = [];
  for (const model of [MODELS.shapes, MODELS.lraspp]) {
    for (const backend of ['native', 'wasm'] as const) {
      const seg = await createSegmenter({ model: model.dir, backends: [backend], numThreads: threads });
      // Confidence 0 as well for the seeded LRASPP: its logits are unsure everywhere, so at the default
      // 50 almost every pixel is certainly background; at 0 every class boundary takes the full path.
      const settings = ['1024x768', '4032x3024'].flatMap(
        (size) =>
          (model === MODELS.lraspp && backend === 'native'
            ? [
                [size, 50],
                [size, 0],
              ]
            : [[size, 50]]) as [string, number][],
      );
      for (const [size, confidence] of settings) {
        const bytes = await readFile(imagePath(size));
        const samples: Record<string, number[]> = {};
        for (let i = 0; i < warmup + runs; i++) {
          const t = performance.now();
          const { timings } = await seg.segmentDetailed(bytes, { confidence });
          const total = performance.now() - t;
          if (i < warmup) continue;
          for (const [k, v] of Object.entries({ ...timings, total })) (samples[k] ??= []).push(v);
        }
        rows.push({
          model: model.label,
          image: size,
          backend,
          confidence,
          stages: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)])) as PipelineRow['stages'],
        });
      }
      await seg.dispose();
    }
  }
  return rows;
}

export function pipelineTable(rows: PipelineRow[]): string {
  const stages = ['decode', 'preprocess', 'run', 'postprocess', 'encode', 'total'] as const;
  return table(
    ['model', 'image', 'backend', 'confidence', ...stages.map((s) => `${s} ms`)],
    rows.map((r) => [r.model, r.image, r.backend, r.confidence, ...stages.map((s) => spread(r.stages[s]))]),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const i = process.argv.indexOf('--runs');
  const runs = i > 0 ? Number(process.argv[i + 1]) : 20;
  const rows = await benchPipeline(runs);
  console.log(`Stage times in Node, ms: median (p10–p90) of ${runs} runs after 3 warm-up runs, 2 threads.\n`);
  console.log(pipelineTable(rows));
}

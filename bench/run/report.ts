// The report of a whole run: the tables and the targets, in Markdown.
import { pipelineTable, type PipelineRow } from '../pipeline.js';
import { ms, spread, table, type Summary } from '../stats.js';
import { RUNS, WARMUP, MEMORY_CALLS, THREADS, WEBGPU_ONLY } from './options.js';
import { verdicts, judge, type Environment, type Row, type Streams, pct, stageTable } from './harness.js';
import { type WebgpuResults, webgpuReport, webgpuTargets } from './webgpu.js';
import { type PeopleResults, peopleReport, peopleTargets } from './people.js';

export function formatReport(
  results: Record<string, unknown>,
  wasm: { rows: Row[]; streams: Streams; pipeline: PipelineRow[] } | null,
  webgpu: WebgpuResults | null,
  people: PeopleResults | null,
): string {
  const out: string[] = [];
  const env = results.environment as Environment & { node: string };
  const runtime = wasm
    ? `onnxruntime-web 1.30.0 WASM, ${THREADS} threads`
    : `onnxruntime-web 1.30.0 WebGPU (its WASM part on ${THREADS} threads)`;
  const args = process.argv.slice(2).filter((a) => a !== '--webgpu-only');
  const command = `npm run bench:models && npm run ${WEBGPU_ONLY ? 'bench:webgpu' : 'bench'}${args.length ? ` -- ${args.join(' ')}` : ''}`;
  // Sections 2–4's figures (absent when only WebGPU ran).
  const cold = results.coldStart as { empty: number; warm: Summary };
  const session = (results.sessionCreate as Record<string, { create: number; firstRun: number }> | undefined)?.shapes;
  const sessionAndFirstRun = session ? session.create + session.firstRun : NaN;
  const mem = results.memory as { after10: number; afterN: number };
  out.push(
    `Run on ${new Date(String(results.date)).toISOString().slice(0, 10)}: ${env.cores} cores, Node ${env.node}, ${/Chrome\/[\d.]+/.exec(env.userAgent)?.[0] ?? env.userAgent} headless (cross-origin isolated: ${env.isolated}), ${runtime}. \`${command}\``,
  );
  if (wasm) {
    const { rows, streams, pipeline } = wasm;
    out.push(
      `\n### End to end in Chromium (WASM, 2 threads), encoded JPEG in; ms, median (p10–p90) of ${RUNS} runs after ${WARMUP} warm-up runs (transformers.js at 4032×3024: after ${Math.min(1, WARMUP)})\n`,
    );
    out.push(
      table(
        [
          'model',
          'image',
          'edgeseg segment()',
          'segmentRaw()',
          'model alone',
          'transformers.js',
          'hosted route (loopback)',
          'transformers.js ÷ edgeseg',
          'mask = hosted',
        ],
        rows.map((r) => [
          r.model,
          r.image,
          spread(r.edgeseg),
          spread(r.raw),
          spread(r.ortAlone),
          spread(r.transformers),
          spread(r.hosted),
          (r.transformers.median / r.edgeseg.median).toFixed(2),
          pct(r.equalShare),
        ]),
      ),
    );
    out.push('\n### edgeseg stage breakdown in Chromium, ms (median)\n');
    out.push(stageTable(rows));
    out.push('\n### Node, ms: median (p10–p90)\n');
    out.push(pipelineTable(pipeline));
    out.push('\n### Cold start, stream, memory, size\n');
    out.push(
      `- First mask, empty cache: ${ms(cold.empty)} ms; warm cache: ${spread(cold.warm)} ms; session creation + first run alone: ${ms(sessionAndFirstRun)} ms (cold starts on a production build of the page, served statically with COOP/COEP).`,
    );
    for (const [k, v] of Object.entries(streams))
      out.push(`- Stream of 640×480 frames, bundled model, ${k}: ${v.fps.toFixed(1)} frames/s.`);
    out.push(
      `- Memory (page + worker) after 10 calls ${(mem.after10 / 1e6).toFixed(1)} MB, after ${MEMORY_CALLS} calls ${(mem.afterN / 1e6).toFixed(1)} MB.`,
    );
    out.push(`- Main-thread code before the worker starts: ${(Number(results.mainThreadBytes) / 1024).toFixed(1)} KB gzipped.`);
  }
  if (people) out.push(peopleReport(people));
  if (webgpu) out.push(webgpuReport(webgpu));

  out.push('\n### Targets\n');
  verdicts.length = 0;
  if (people) peopleTargets(people);
  if (wasm) {
    const { rows, streams } = wasm;
    const lr = (size: string) => rows.find((r) => r.image === size && r.model.startsWith('LRASPP'))!;
    const ratio = (r: Row) => r.transformers.median / r.edgeseg.median;
    judge('edgeseg ≥ 2× faster than transformers.js at 640×480 (LRASPP)', `${ratio(lr('640x480')).toFixed(2)}×`, ratio(lr('640x480')) >= 2);
    judge(
      'edgeseg ≥ 3× faster than transformers.js at 1024×768 (LRASPP)',
      `${ratio(lr('1024x768')).toFixed(2)}×`,
      ratio(lr('1024x768')) >= 3,
    );
    judge(
      'edgeseg ≥ 5× faster than transformers.js at 4032×3024 (LRASPP)',
      `${ratio(lr('4032x3024')).toFixed(2)}×`,
      ratio(lr('4032x3024')) >= 5,
    );
    const e2e = lr('1024x768').edgeseg.median / lr('1024x768').ortAlone.median;
    judge('WASM end to end ≤ 1.25 × the model alone at 1024×768 (LRASPP)', `${e2e.toFixed(2)}×`, e2e <= 1.25);
    const bestFps = Math.max(...Object.values(streams).map((s) => s.fps));
    judge('live mode ≥ 30 frames/s at 640×480 (bundled model, WASM)', `${bestFps.toFixed(1)} frames/s`, bestFps >= 30);
    const warm = cold.warm.median / sessionAndFirstRun;
    judge('first mask from a warm cache ≤ 1.5 × (session creation + first run)', `${warm.toFixed(2)}×`, warm <= 1.5);
    const growth = mem.afterN / mem.after10 - 1;
    judge(
      `memory after ${MEMORY_CALLS.toLocaleString('en')} calls within 5% of memory after 10 calls`,
      `${(growth * 100).toFixed(1)}%`,
      Math.abs(growth) <= 0.05,
    );
    const worstEqual = Math.min(...rows.map((r) => r.equalShare));
    judge(
      'edgeseg WASM payload equals the hosted route (onnxruntime-node) on ≥ 99.99% of pixels, every model and image',
      pct(worstEqual),
      worstEqual >= 0.9999,
    );
    judge(
      'main-thread code before the worker starts ≤ 15 KB gzipped',
      `${(Number(results.mainThreadBytes) / 1024).toFixed(1)} KB`,
      Number(results.mainThreadBytes) <= 15 * 1024,
    );
  }
  if (webgpu) webgpuTargets(webgpu);
  out.push(
    table(
      ['target', 'measured', 'verdict'],
      verdicts.map((v) => [v.target, v.measured, v.outcome]),
    ),
  );
  return out.join('\n');
}

// The benchmark: edgeseg against its peers, measured in one run on this machine.
//
//   npm run bench            # everything; prints the tables and writes bench/out/results.{json,md}
//   npm run bench -- --quick # fewer runs, for a look
//   npm run bench -- --runs 1 --warmup 0 --seconds 1 --calls 20   # a smoke run of every part
//
// In headless Chromium (cross-origin isolated, 2 WASM threads) and in Node:
//   - edgeseg segment() and segmentRaw(), encoded image in (WASM backend in a worker);
//   - the model alone: onnxruntime-web session.run on a prepared tensor, same build and threads;
//   - the peer: transformers.js image-segmentation on the same ONNX weights, local files only;
//   - the hosted route of the local platform over loopback (onnxruntime-node);
// plus cold starts, frames per second on a 640×480 stream, memory over 1,000 calls, and the gzipped
// size of what a page loads before the worker starts. Targets are printed with PASS or FALLS SHORT.
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Page } from 'playwright-core';
import { build, createServer } from 'vite';
import { startPlatformServer, type PlatformServer } from '../server/index.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../test/chromium.js';
import { startStaticServer, type StaticServer } from '../test/fixtures/static-server.js';
import { IMAGE_SIZES, imagePath, MODELS, requireBenchModels, ROOT } from './paths.js';
import { benchPipeline, pipelineTable } from './pipeline.js';
import { decodeMaskPng } from '../src/payload/index.js';
import { base64ToBytes } from '../src/payload/base64.js';
import { ms, spread, summarize, table, type Summary } from './stats.js';

const flag = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : undefined;
};
const quick = process.argv.includes('--quick');
const RUNS = flag('runs') ?? (quick ? 5 : 20);
const WARMUP = flag('warmup') ?? (quick ? 1 : 3);
const SECONDS = flag('seconds') ?? (quick ? 3 : 8);
const MEMORY_CALLS = flag('calls') ?? (quick ? 200 : 1000);
const THREADS = 2;
const OUT = join(ROOT, 'bench', 'out');
const line = (s = '') => console.log(s);

interface Verdict {
  target: string;
  measured: string;
  pass: boolean;
}
const verdicts: Verdict[] = [];
const judge = (target: string, measured: string, pass: boolean) => {
  verdicts.push({ target, measured, pass });
  line(`  ${pass ? 'PASS       ' : 'FALLS SHORT'}  ${target}: ${measured}`);
};

async function main() {
  requireBenchModels();
  await mkdir(OUT, { recursive: true });
  const results: Record<string, unknown> = { date: new Date().toISOString(), runs: RUNS, warmup: WARMUP, threads: THREADS };

  // The hosted route: the local platform on loopback, one per model (version 2 = the model under test).
  const platforms: Record<string, PlatformServer> = {};
  const dataDirs: string[] = [];
  for (const [key, model] of Object.entries(MODELS)) {
    const dir = await mkdtemp(join(tmpdir(), 'edgeseg-bench-'));
    dataDirs.push(dir);
    platforms[key] = await startPlatformServer({ port: 0, dataDir: dir, modelDir: model.dir });
  }

  const transformersDist = join(ROOT, 'node_modules', '@huggingface', 'transformers', 'node_modules', 'onnxruntime-web', 'dist');
  const server = await createServer({
    configFile: false,
    root: join(ROOT, 'bench'),
    logLevel: 'warn',
    resolve: { alias: { edgeseg: join(ROOT, 'src', 'index.ts') } },
    define: { __TRANSFORMERS_WASM__: JSON.stringify({ mjs: `/@fs${transformersDist}/ort-wasm-simd-threaded.asyncify.mjs`, wasm: `/@fs${transformersDist}/ort-wasm-simd-threaded.asyncify.wasm` }) },
    // No file watching and no dependency discovery: a page reload in the middle of a measurement (an
    // edit under src/, or Vite pre-bundling a dependency it first meets at run time, as transformers.js's
    // own onnxruntime imports are on a fresh install) would lose the run.
    server: { host: '127.0.0.1', port: 0, hmr: false, watch: null, headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' }, fs: { allow: [ROOT] } },
    optimizeDeps: { noDiscovery: true, include: ['upng-js'], exclude: ['onnxruntime-web', '@huggingface/transformers'] },
    worker: { format: 'es' },
  });
  await server.listen();
  const origin = server.resolvedUrls!.local[0]!.replace(/\/$/, '');
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const page = await browser.newPage();
  page.on('pageerror', (e) => console.error('page error:', e.message));
  await page.goto(`${origin}/web/index.html`);
  await page.waitForFunction(() => (window as unknown as { benchReady?: boolean }).benchReady === true);
  const env = await page.evaluate(() => ({ userAgent: navigator.userAgent, cores: navigator.hardwareConcurrency, isolated: crossOriginIsolated }));
  results.environment = { ...env, node: process.version };
  line(`Chromium: ${env.userAgent}\ncores ${env.cores}, cross-origin isolated: ${env.isolated}, WASM threads ${THREADS}, ${RUNS} runs after ${WARMUP} warm-up runs\n`);

  const call = <T>(p: Page, fn: string, config: Record<string, unknown>) =>
    p.evaluate(([f, c]) => (window as unknown as { bench: Record<string, (c: unknown) => Promise<unknown>> }).bench[f as string]!(c), [fn, config] as const) as Promise<T>;
  const url = (file: string) => `/@fs${file}`;

  // 1. End to end, model alone, the peer, the hosted route.
  type Row = { model: string; image: string; equalShare: number; edgeseg: Summary; raw: Summary; stages: Record<string, Summary>; ortAlone: Summary; transformers: Summary; hosted: Summary };
  const rows: Row[] = [];
  const sessionCreate: Record<string, { create: number; firstRun: number }> = {};
  results.sessionCreate = sessionCreate;
  for (const [key, model] of Object.entries(MODELS)) {
    const modelUrl = `${url(model.dir)}/`;
    const alone = await call<{ times: number[]; create: number; firstRun: number }>(page, 'ortAlone', { model: modelUrl, image: '', threads: THREADS, runs: RUNS, warmup: WARMUP });
    sessionCreate[key] = { create: alone.create, firstRun: alone.firstRun };
    for (const size of IMAGE_SIZES) {
      const base = { model: modelUrl, hfModel: model.hf, image: url(imagePath(size)), threads: THREADS, runs: RUNS, warmup: WARMUP };
      const e = await call<{ times: number[]; stages: Record<string, number[]>; mask: string }>(page, 'edgeseg', { ...base, raw: false });
      const r = await call<{ times: number[] }>(page, 'edgeseg', { ...base, raw: true });
      // The peer takes seconds per 12-megapixel image: one warm-up run there.
      const t = await call<{ times: number[] }>(page, 'transformers', size === '4032x3024' ? { ...base, warmup: Math.min(1, WARMUP) } : base);
      const p = platforms[key]!;
      const h = await call<{ times: number[]; mask: string }>(page, 'hosted', { ...base, baseUrl: p.baseUrl, inferenceUrl: p.inferenceUrl, apiKey: p.apiKey, project: 'shapes', version: 2 });
      const row: Row = {
        model: model.label, image: size, equalShare: equalShare(e.mask, h.mask), edgeseg: summarize(e.times), raw: summarize(r.times),
        stages: Object.fromEntries(Object.entries(e.stages).map(([k, v]) => [k, summarize(v)])),
        ortAlone: summarize(alone.times), transformers: summarize(t.times), hosted: summarize(h.times),
      };
      rows.push(row);
      line(`${model.label} ${size}: mask = hosted on ${pct(row.equalShare)} of pixels · edgeseg ${spread(row.edgeseg)} · raw ${spread(row.raw)} · model alone ${spread(row.ortAlone)} · transformers.js ${spread(row.transformers)} · hosted ${spread(row.hosted)} ms`);
    }
    await call(page, 'dispose', {});
  }
  results.endToEnd = rows;

  // 2. Cold start, on the bundled model: empty cache, then warm. Measured on a production build of this
  // page on a static server (COOP/COEP), as an app ships edgeseg: a bundled worker, not the dev server's
  // module-by-module loading. The figure it is held to, onnxruntime-web's session creation + first run,
  // comes from section 1 (one file there, its wasm compiled for the first time in that page).
  const platformShapes = platforms.shapes!;
  // The package's folder URL as the platform hands it out (signed), from the version record.
  const versionRecord = (await (await fetch(`${platformShapes.baseUrl}/edgeseg-demo/shapes/2?api_key=${platformShapes.apiKey}`)).json()) as { version: { model: { packageUrl: string } } };
  const modelFiles = versionRecord.version.model.packageUrl;
  const built = await builtBenchPage();
  const coldPage = await browser.newPage();
  coldPage.on('pageerror', (e) => console.error('page error:', e.message));
  await coldPage.goto(`${built.url}/index.html`);
  await coldPage.waitForFunction(() => (window as unknown as { benchReady?: boolean }).benchReady === true);
  const cold = await call<{ empty: number; warm: number[] }>(coldPage, 'coldStart', { model: '', modelUrl: modelFiles, image: '/scene-640x480.jpg', threads: THREADS, runs: 0, warmup: 0 });
  results.coldStart = { empty: cold.empty, warm: summarize(cold.warm) };
  await coldPage.close();
  await built.close();

  // 3. Frames per second on a 640×480 stream, bundled model: one call at a time, and pipelined.
  const streams: Record<string, { fps: number; frames: number }> = {};
  for (const [label, cfg] of Object.entries({ 'one worker, one frame at a time': { workers: 1, inFlight: 1, threads: 2 }, 'one worker, 2 frames in flight': { workers: 1, inFlight: 2, threads: 2 }, 'two workers × 1 thread, 2 in flight': { workers: 2, inFlight: 2, threads: 1 } })) {
    streams[label] = await call(page, 'stream', { model: `${url(MODELS.shapes.dir)}/`, image: url(imagePath('1024x768')), seconds: SECONDS, ...cfg, runs: 0, warmup: 0 });
  }
  results.stream = streams;

  // 4. Memory over 1,000 calls.
  const memory = await call<{ after10: number; afterN: number }>(page, 'memory', { model: `${url(MODELS.shapes.dir)}/`, image: url(imagePath('640x480')), threads: THREADS, runs: MEMORY_CALLS, warmup: 0 });
  results.memory = memory;
  await browser.close();
  await server.close();

  // 5. What a page loads before the worker starts: a production build of `createSegmenter` alone.
  results.mainThreadBytes = await mainThreadSize();

  // 6. Node: stage times and the hosted route's server side.
  const pipeline = await benchPipeline(RUNS, WARMUP, THREADS);
  results.node = pipeline;
  for (const p of Object.values(platforms)) await p.close();
  for (const d of dataDirs) await rm(d, { recursive: true, force: true });

  // Report.
  const report = formatReport(rows, results, streams, pipeline);
  line(`\n${report}`);
  await writeFile(join(OUT, 'results.json'), JSON.stringify({ ...results, verdicts }, null, 1));
  await writeFile(join(OUT, 'results.md'), report);
  line(`\nwrote ${relative(ROOT, join(OUT, 'results.md'))} and results.json`);
}

/** Share of pixels on which two payload masks agree (0 when their sizes differ). */
function equalShare(a: string, b: string): number {
  const x = decodeMaskPng(base64ToBytes(a));
  const y = decodeMaskPng(base64ToBytes(b));
  if (x.width !== y.width || x.height !== y.height) return 0;
  let same = 0;
  for (let i = 0; i < x.classIds.length; i++) if (x.classIds[i] === y.classIds[i]) same++;
  return same / x.classIds.length;
}

const pct = (share: number) => `${(100 * share).toFixed(4)}%`;

function formatReport(rows: Array<Record<string, unknown> & { model: string; image: string; equalShare: number; edgeseg: Summary; raw: Summary; ortAlone: Summary; transformers: Summary; hosted: Summary; stages: Record<string, Summary> }>, results: Record<string, unknown>, streams: Record<string, { fps: number }>, pipeline: Awaited<ReturnType<typeof benchPipeline>>): string {
  const out: string[] = [];
  const env = results.environment as { userAgent: string; cores: number; isolated: boolean; node: string };
  out.push(`Run on ${new Date(String(results.date)).toISOString().slice(0, 10)}: ${env.cores} cores, Node ${env.node}, ${/Chrome\/[\d.]+/.exec(env.userAgent)?.[0] ?? env.userAgent} headless (cross-origin isolated: ${env.isolated}), onnxruntime-web 1.30.0 WASM, ${THREADS} threads. \`npm run bench:models && npm run bench${process.argv.slice(2).length ? ` -- ${process.argv.slice(2).join(' ')}` : ''}\`\n`);
  out.push(`### End to end in Chromium (WASM, 2 threads), encoded JPEG in; ms, median (p10–p90) of ${RUNS} runs after ${WARMUP} warm-up runs (transformers.js at 4032×3024: after ${Math.min(1, WARMUP)})\n`);
  out.push(table(['model', 'image', 'edgeseg segment()', 'segmentRaw()', 'model alone', 'transformers.js', 'hosted route (loopback)', 'transformers.js ÷ edgeseg', 'mask = hosted'],
    rows.map((r) => [r.model, r.image, spread(r.edgeseg), spread(r.raw), spread(r.ortAlone), spread(r.transformers), spread(r.hosted), (r.transformers.median / r.edgeseg.median).toFixed(2), pct(r.equalShare)])));
  out.push('\n### edgeseg stage breakdown in Chromium, ms (median)\n');
  const stages = ['decode', 'preprocess', 'run', 'postprocess', 'encode', 'total'];
  out.push(table(['model', 'image', ...stages, 'end to end ÷ model alone'], rows.map((r) => [r.model, r.image, ...stages.map((s) => (r.stages[s] ? ms(r.stages[s]!.median) : '—')), (r.edgeseg.median / r.ortAlone.median).toFixed(2)])));
  out.push('\n### Node, ms: median (p10–p90)\n');
  out.push(pipelineTable(pipeline));
  const cold = results.coldStart as { empty: number; warm: Summary };
  const session = (results.sessionCreate as Record<string, { create: number; firstRun: number }>).shapes!;
  const mem = results.memory as { after10: number; afterN: number };
  out.push('\n### Cold start, stream, memory, size\n');
  out.push(`- First mask, empty cache: ${ms(cold.empty)} ms; warm cache: ${spread(cold.warm)} ms; session creation + first run alone: ${ms(session.create + session.firstRun)} ms (cold starts on a production build of the page, served statically with COOP/COEP).`);
  for (const [k, v] of Object.entries(streams)) out.push(`- Stream of 640×480 frames, bundled model, ${k}: ${v.fps.toFixed(1)} frames/s.`);
  out.push(`- Memory (page + worker) after 10 calls ${(mem.after10 / 1e6).toFixed(1)} MB, after ${MEMORY_CALLS} calls ${(mem.afterN / 1e6).toFixed(1)} MB.`);
  out.push(`- Main-thread code before the worker starts: ${(Number(results.mainThreadBytes) / 1024).toFixed(1)} KB gzipped.`);

  out.push('\n### Targets\n');
  const lr = (size: string) => rows.find((r) => r.image === size && r.model.startsWith('LRASPP'))!;
  verdicts.length = 0;
  const ratio = (r: (typeof rows)[number]) => r.transformers.median / r.edgeseg.median;
  judge('edgeseg ≥ 2× faster than transformers.js at 640×480 (LRASPP)', `${ratio(lr('640x480')).toFixed(2)}×`, ratio(lr('640x480')) >= 2);
  judge('edgeseg ≥ 3× faster than transformers.js at 1024×768 (LRASPP)', `${ratio(lr('1024x768')).toFixed(2)}×`, ratio(lr('1024x768')) >= 3);
  judge('edgeseg ≥ 5× faster than transformers.js at 4032×3024 (LRASPP)', `${ratio(lr('4032x3024')).toFixed(2)}×`, ratio(lr('4032x3024')) >= 5);
  const e2e = lr('1024x768').edgeseg.median / lr('1024x768').ortAlone.median;
  judge('WASM end to end ≤ 1.25 × the model alone at 1024×768 (LRASPP)', `${e2e.toFixed(2)}×`, e2e <= 1.25);
  const bestFps = Math.max(...Object.values(streams).map((s) => s.fps));
  judge('live mode ≥ 30 frames/s at 640×480 (bundled model, WASM)', `${bestFps.toFixed(1)} frames/s`, bestFps >= 30);
  const warm = cold.warm.median / (session.create + session.firstRun);
  judge('first mask from a warm cache ≤ 1.5 × (session creation + first run)', `${warm.toFixed(2)}×`, warm <= 1.5);
  const growth = mem.afterN / mem.after10 - 1;
  judge(`memory after ${MEMORY_CALLS.toLocaleString('en')} calls within 5% of memory after 10 calls`, `${(growth * 100).toFixed(1)}%`, Math.abs(growth) <= 0.05);
  const worstEqual = Math.min(...rows.map((r) => r.equalShare));
  judge('edgeseg WASM payload equals the hosted route (onnxruntime-node) on ≥ 99.99% of pixels, every model and image', pct(worstEqual), worstEqual >= 0.9999);
  judge('main-thread code before the worker starts ≤ 15 KB gzipped', `${(Number(results.mainThreadBytes) / 1024).toFixed(1)} KB`, Number(results.mainThreadBytes) <= 15 * 1024);
  out.push(table(['target', 'measured', 'verdict'], verdicts.map((v) => [v.target, v.measured, v.pass ? 'PASS' : 'FALLS SHORT'])));
  return out.join('\n');
}

/** A production build of bench/<page> (edgeseg from source) into bench/out/<out>; returns the folder. */
async function buildPage(page: string, out: string, extra: { define?: Record<string, string>; build?: Record<string, unknown> }): Promise<string> {
  const dir = join(OUT, out);
  await build({
    configFile: false,
    root: join(ROOT, 'bench', page),
    logLevel: 'warn',
    resolve: { alias: { edgeseg: join(ROOT, 'src', 'index.ts') } },
    ...(extra.define ? { define: extra.define } : {}),
    worker: { format: 'es' },
    build: { outDir: dir, emptyOutDir: true, target: 'es2022', ...extra.build },
  });
  return dir;
}

/** This page built for production (as an app ships edgeseg) on a static server with COOP/COEP. */
async function builtBenchPage(): Promise<StaticServer> {
  // The peer is not measured on this page.
  const dir = await buildPage('web', 'web-build', { define: { __TRANSFORMERS_WASM__: JSON.stringify({ mjs: '', wasm: '' }) }, build: { chunkSizeWarningLimit: 1e6 } });
  await copyFile(imagePath('640x480'), join(dir, 'scene-640x480.jpg'));
  return startStaticServer(dir, { isolate: true });
}

/** Gzipped bytes of the JavaScript a page runs before the worker: the entry chunk and its static imports. */
async function mainThreadSize(): Promise<number> {
  const dir = await buildPage('size', 'size', { build: { modulePreload: false } });
  const html = await readFile(join(dir, 'index.html'), 'utf8');
  const entry = /src="\/?(assets\/[^"]+\.js)"/.exec(html)![1]!;
  const seen = new Set<string>();
  let total = 0;
  const visit = async (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const code = await readFile(join(dir, file), 'utf8');
    total += gzipSync(code, { level: 9 }).length;
    // Static imports only: dynamic imports and the worker load later, in the worker.
    for (const m of code.matchAll(/(?:^|[;\n}])\s*import\s*(?:[\w{},*\s$]+from\s*)?["']\.\/([^"']+)["']/g)) await visit(join('assets', m[1]!));
  };
  await visit(entry);
  return total;
}

await main();

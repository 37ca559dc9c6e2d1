// The benchmark: edgeseg against its peers, measured in one run on this machine.
//
//   npm run bench            # everything; prints the tables and writes bench/out/results.{json,md}
//   npm run bench -- --quick # fewer runs, for a look
//   npm run bench -- --runs 1 --warmup 0 --seconds 1 --calls 20   # a smoke run of every part
//   npm run bench -- --webgpu  # everything, plus the WebGPU section below
//   npm run bench -- --people-only # the people section alone (below): bench/out/people.{json,md}
//   npm run bench -- --people-only --threads 1 --warmup 40  # one thread each, after the WASM tier-up
//   npm run bench -- --engines-only  # the engines section alone (bench/out/engines.{json,md})
//   npm run bench:webgpu       # the WebGPU section alone (and the hosted route's masks it is compared
//                              # with); bench/out/webgpu.{json,md}. Add -- --webgpu-all for every model and
//                              # image on a software adapter too
//
// In headless Chromium (cross-origin isolated, 2 WASM threads) and in Node:
//   - edgeseg segment() and segmentRaw(), encoded image in (WASM backend in a worker);
//   - the model alone: onnxruntime-web session.run on a prepared tensor, same build and threads;
//   - the peer: transformers.js image-segmentation on the same ONNX weights, local files only;
//   - the hosted route of the local platform over loopback (onnxruntime-node);
// the people section: the bundled people model (MediaPipe's selfie segmenter, converted) on edgeseg WASM
// against Google's own runtime, LiteRT.js (XNNPACK), on the original .tflite, same page and threads: the
// model alone on both, and end to end edgeseg segment() / segmentRaw() against LiteRT.js plus the code an
// app writes around it (bench.ts `litertApp`), at 640×480 and 1280×720; and a 640×480 stream;
// plus cold starts, frames per second on a 640×480 stream, memory over 1,000 calls, and the gzipped
// size of what a page loads before the worker starts. Targets are printed with PASS or FALLS SHORT
// (or NOT MEASURED, with the reason, where a figure cannot answer its target).
//
// The engines section: edgeseg segment() end to end on the bundled model (WASM) in Chromium, Firefox ESR
// and WebKitGTK (test/engines), the same page and images in each, so that a regression in one engine shows.
//
// The WebGPU section (--webgpu, --webgpu-only) runs in a Chromium of its own, started with the flags
// for a real GPU (CHROMIUM_GPU_ARGS; EDGESEG_WEBGPU_ARGS adds more, space-separated) and, where those
// give no adapter, with SwiftShader forced. It records the adapter and the flags, and measures edgeseg
// on webgpu, onnxruntime-web's WebGPU EP alone and their ratio. A software adapter (SwiftShader, Mesa
// llvmpipe, any fallback adapter) proves the harness and the masks but is no speed figure: there only
// the bundled model at 640×480 is run (3 runs after 1 warm-up unless --runs/--warmup say otherwise)
// and the speed target reads NOT MEASURED.
import { readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build, createServer, type ViteDevServer } from 'vite';
import { startPlatformServer, type PlatformServer } from '../server/index.js';
import { CHROMIUM_ARGS, CHROMIUM_GPU_ARGS, CHROMIUM_PATH, CHROMIUM_WEBGPU_ARGS } from '../test/chromium.js';
import { startStaticServer, type StaticServer } from '../test/fixtures/static-server.js';
import { ENGINES, openEngine, type EngineName, type EnginePage } from '../test/engines/index.js';
import { SUPPORT } from '../test/engines/support.js';
import { IMAGE_SIZES, imagePath, MODELS, requireBenchModels, ROOT } from './paths.js';
import { benchPipeline, pipelineTable, type PipelineRow } from './pipeline.js';
import { decodeMaskPng } from '../src/payload/index.js';
import { base64ToBytes } from '../src/payload/base64.js';
import { ms, spread, summarize, table, type Summary } from './stats.js';
import { PEOPLE_VARIANTS } from '../models/people/parity/cases.js';

const flag = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : undefined;
};
const quick = process.argv.includes('--quick');
const RUNS = flag('runs') ?? (quick ? 5 : 20);
const WARMUP = flag('warmup') ?? (quick ? 1 : 3);
const SECONDS = flag('seconds') ?? (quick ? 3 : 8);
const MEMORY_CALLS = flag('calls') ?? (quick ? 200 : 1000);
/** WASM threads asked of every runtime (`--threads N`; 2 by default, the cores of the machine the targets were set on). */
const THREADS = flag('threads') ?? 2;
const WEBGPU_ONLY = process.argv.includes('--webgpu-only');
const PEOPLE_ONLY = process.argv.includes('--people-only');
const WEBGPU = WEBGPU_ONLY || process.argv.includes('--webgpu');
/** Every model and image on WebGPU even when the adapter is software (minutes per LRASPP run there). */
const WEBGPU_ALL = process.argv.includes('--webgpu-all');
const ENGINES_ONLY = process.argv.includes('--engines-only');
const OUT = join(ROOT, 'bench', 'out');
const line = (s = '') => console.log(s);

/** NOT MEASURED: the figure exists but does not answer the target (a software GPU), or there is none. */
type Outcome = 'PASS' | 'FALLS SHORT' | 'NOT MEASURED';
interface Verdict {
  target: string;
  measured: string;
  outcome: Outcome;
}
const verdicts: Verdict[] = [];
const judge = (target: string, measured: string, pass: boolean | 'NOT MEASURED') => {
  const outcome: Outcome = pass === 'NOT MEASURED' ? pass : pass ? 'PASS' : 'FALLS SHORT';
  verdicts.push({ target, measured, outcome });
  line(`  ${outcome.padEnd(12)}  ${target}: ${measured}`);
};

const call = <T>(p: Page, fn: string, config: Record<string, unknown>) =>
  p.evaluate(([f, c]) => (window as unknown as { bench: Record<string, (c: unknown) => Promise<unknown>> }).bench[f]!(c), [
    fn,
    config,
  ] as const) as Promise<T>;
const url = (file: string) => `/@fs${file}`;
/** The hosted route's arguments for bench.ts's `hosted` (version 2 of project shapes is the model under test). */
const hostedConfig = (p: PlatformServer) => ({
  baseUrl: p.baseUrl,
  inferenceUrl: p.inferenceUrl,
  apiKey: p.apiKey,
  project: 'shapes',
  version: 2,
});
type ModelKey = keyof typeof MODELS;
type Environment = { userAgent: string; cores: number; isolated: boolean };

async function main() {
  if (PEOPLE_ONLY) return peopleOnly();
  if (ENGINES_ONLY) return enginesOnly();
  requireBenchModels();
  await mkdir(OUT, { recursive: true });
  const results: Record<string, unknown> = { date: new Date().toISOString(), runs: RUNS, warmup: WARMUP, threads: THREADS };

  // The hosted route: the local platform on loopback, one per model (version 2 = the model under test).
  const platforms = {} as Record<ModelKey, PlatformServer>;
  const dataDirs: string[] = [];
  for (const [key, model] of Object.entries(MODELS)) {
    const dir = await mkdtemp(join(tmpdir(), 'edgeseg-bench-'));
    dataDirs.push(dir);
    platforms[key as ModelKey] = await startPlatformServer({ port: 0, dataDir: dir, modelDir: model.dir });
  }
  const server = await benchServer();
  const origin = server.resolvedUrls!.local[0]!.replace(/\/$/, '');
  // The hosted route's mask per `model image`: the reference that both backends' masks are compared with.
  const hostedMasks = new Map<string, string>();

  const wasm = WEBGPU_ONLY ? null : await browserSections(origin, platforms, hostedMasks, results);
  const people = WEBGPU_ONLY ? null : await peopleSection(origin);
  if (people) results.people = people;
  const engines = WEBGPU_ONLY ? null : await engineSection(origin);
  if (engines) results.engines = engines;
  const webgpu = WEBGPU ? await webgpuSection(origin, platforms, hostedMasks) : null;
  if (webgpu) results.webgpu = webgpu;
  results.environment ??= { ...webgpu!.environment, node: process.version };
  await server.close();

  let pipeline: Awaited<ReturnType<typeof benchPipeline>> | null = null;
  if (!WEBGPU_ONLY) {
    // 5. What a page loads before the worker starts: a production build of `createSegmenter` alone.
    results.mainThreadBytes = await mainThreadSize();
    // 6. Node: stage times and the hosted route's server side.
    results.node = pipeline = await benchPipeline(RUNS, WARMUP, THREADS);
  }
  for (const p of Object.values(platforms)) await p.close();
  for (const d of dataDirs) await rm(d, { recursive: true, force: true });

  // Report.
  const report =
    formatReport(results, wasm && pipeline ? { ...wasm, pipeline } : null, webgpu, people) + (engines ? `\n${engineReport(engines)}` : '');
  const name = WEBGPU_ONLY ? 'webgpu' : 'results';
  line(`\n${report}`);
  await writeFile(join(OUT, `${name}.json`), JSON.stringify({ ...results, verdicts }, null, 1));
  await writeFile(join(OUT, `${name}.md`), report);
  line(`\nwrote ${relative(ROOT, join(OUT, `${name}.md`))} and ${name}.json`);
}

type EngineRow = { image: string; times: Partial<Record<EngineName, Summary>>; equalToChromium: Partial<Record<EngineName, number>> };
interface EngineResults {
  versions: Partial<Record<EngineName, string>>;
  threads: Partial<Record<EngineName, number>>;
  rows: EngineRow[];
}

/** Sample images of the bundled model at two sizes (JPEG), as the engines section feeds them. */
function engineImages(): Array<{ label: string; path: string }> {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'models', 'shapes', 'samples', 'manifest.json'), 'utf8')) as {
    images: Array<{ file: string; width: number; height: number }>;
  };
  return ['320x240', '640x480'].map((size) => {
    const image = manifest.images.find((i) => `${i.width}x${i.height}` === size)!;
    return { label: size, path: join(ROOT, 'models', 'shapes', 'samples', image.file) };
  });
}

/** edgeseg segment() on the bundled model (WASM, THREADS threads asked) in each engine, on the same page. */
async function engineSection(origin: string): Promise<EngineResults> {
  const images = engineImages();
  const model = `${url(join(ROOT, 'models', 'shapes', 'package'))}/`;
  const results: EngineResults = {
    versions: {},
    threads: {},
    rows: images.map((i) => ({ image: i.label, times: {}, equalToChromium: {} })),
  };
  const masks = new Map<string, string>();
  line('\nEngines: edgeseg segment() on the bundled model (WASM)');
  for (const engine of ENGINES) {
    const page = await openEngine(engine);
    try {
      await page.goto(`${origin}/web/index.html`);
      if (!(await enginePageReady(page))) throw new Error(`the bench page did not get ready in ${engine} within 60 s`);
      results.versions[engine] = page.version;
      for (const [i, image] of images.entries()) {
        const e = await page.evaluate(
          (c: Record<string, string | number | boolean>) =>
            (
              window as unknown as { bench: { edgeseg(c: unknown): Promise<{ times: number[]; mask: string; threads: number }> } }
            ).bench.edgeseg(c),
          { model, image: url(image.path), threads: THREADS, runs: RUNS, warmup: WARMUP, raw: false },
        );
        // What the segmenter runs: one thread where the engine has no SharedArrayBuffer, whatever is asked.
        results.threads[engine] = e.threads;
        const row = results.rows[i]!;
        row.times[engine] = summarize(e.times);
        if (engine === 'chromium') masks.set(image.label, e.mask);
        row.equalToChromium[engine] = equalShare(e.mask, masks.get(image.label)!);
        line(
          `${engine} ${page.version} ${image.label}: ${spread(row.times[engine])} ms, mask = Chromium's on ${pct(row.equalToChromium[engine])} of pixels`,
        );
      }
    } finally {
      await page.close();
    }
  }
  return results;
}

/** Waits for the bench page's `benchReady`. */
const enginePageReady = (page: EnginePage) =>
  page.evaluate(async () => {
    for (let i = 0; i < 600 && (window as unknown as { benchReady?: boolean }).benchReady !== true; i++)
      await new Promise((r) => setTimeout(r, 100));
    return (window as unknown as { benchReady?: boolean }).benchReady === true;
  });

function engineReport(e: EngineResults): string {
  const head = ENGINES.map(
    (n) => `${SUPPORT[n].label} ${e.versions[n] ?? '?'} (${e.threads[n] ?? '?'} thread${e.threads[n] === 1 ? '' : 's'})`,
  );
  return [
    `### End to end in each engine: edgeseg segment() on the bundled model (WASM, ${THREADS} threads asked), encoded JPEG in; ms, median (p10–p90) of ${RUNS} runs after ${WARMUP} warm-up runs\n`,
    table(
      ['image', ...head, "mask = Chromium's (Firefox, WebKit)"],
      e.rows.map((r) => [
        r.image,
        ...ENGINES.map((n) => (r.times[n] ? spread(r.times[n]) : '—')),
        `${pct(r.equalToChromium.firefox ?? 0)}, ${pct(r.equalToChromium.webkit ?? 0)}`,
      ]),
    ),
  ].join('\n');
}

/** `--engines-only`: the engines section alone, on the bench page's dev server. */
async function enginesOnly(): Promise<void> {
  await mkdir(OUT, { recursive: true });
  const server = await benchServer();
  try {
    const engines = await engineSection(server.resolvedUrls!.local[0]!.replace(/\/$/, ''));
    const report = `Run on ${new Date().toISOString().slice(0, 10)}, Node ${process.version}. \`npm run bench -- --engines-only${RUNS !== 20 || WARMUP !== 3 ? ` --runs ${RUNS} --warmup ${WARMUP}` : ''}\`\n\n${engineReport(engines)}`;
    line(`\n${report}`);
    await writeFile(
      join(OUT, 'engines.json'),
      JSON.stringify({ date: new Date().toISOString(), runs: RUNS, warmup: WARMUP, ...engines }, null, 1),
    );
    await writeFile(join(OUT, 'engines.md'), report);
  } finally {
    await server.close();
  }
}

/** The bench page's dev server (edgeseg from source), cross-origin isolated. */
async function benchServer(): Promise<ViteDevServer> {
  const transformersDist = join(ROOT, 'node_modules', '@huggingface', 'transformers', 'node_modules', 'onnxruntime-web', 'dist');
  const server = await createServer({
    configFile: false,
    root: join(ROOT, 'bench'),
    logLevel: 'warn',
    resolve: { alias: { edgeseg: join(ROOT, 'src', 'index.ts') } },
    define: {
      __TRANSFORMERS_WASM__: JSON.stringify({
        mjs: `/@fs${transformersDist}/ort-wasm-simd-threaded.asyncify.mjs`,
        wasm: `/@fs${transformersDist}/ort-wasm-simd-threaded.asyncify.wasm`,
      }),
      __LITERT_WASM__: JSON.stringify(`/@fs${join(ROOT, 'node_modules', '@litertjs', 'core', 'wasm')}/`),
    },
    // No file watching and no dependency discovery: a page reload in the middle of a measurement (an
    // edit under src/, or Vite pre-bundling a dependency it first meets at run time, as transformers.js's
    // own onnxruntime imports are on a fresh install) would lose the run.
    server: {
      host: '127.0.0.1',
      port: 0,
      hmr: false,
      watch: null,
      headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' },
      fs: { allow: [ROOT] },
    },
    optimizeDeps: { noDiscovery: true, include: ['upng-js'], exclude: ['onnxruntime-web', '@huggingface/transformers', '@litertjs/core'] },
    worker: { format: 'es' },
  });
  await server.listen();
  return server;
}

/** The bench page, ready to be called; and what the browser says about itself. */
async function benchPage(browser: Browser, origin: string): Promise<{ page: Page; environment: Environment }> {
  const page = await browser.newPage();
  page.on('pageerror', (e) => console.error('page error:', e.message));
  await page.goto(`${origin}/web/index.html`);
  await page.waitForFunction(() => (window as unknown as { benchReady?: boolean }).benchReady === true);
  const environment = await page.evaluate(() => ({
    userAgent: navigator.userAgent,
    cores: navigator.hardwareConcurrency,
    isolated: crossOriginIsolated,
  }));
  return { page, environment };
}

type Stages = Record<string, Summary>;
type Row = {
  model: string;
  image: string;
  equalShare: number;
  edgeseg: Summary;
  raw: Summary;
  stages: Stages;
  ortAlone: Summary;
  transformers: Summary;
  hosted: Summary;
};
type Streams = Record<string, { fps: number; frames: number }>;

/** Sections 1–4, in the WASM browser: end to end with its peers, cold start, stream, memory. */
async function browserSections(
  origin: string,
  platforms: Record<ModelKey, PlatformServer>,
  hostedMasks: Map<string, string>,
  results: Record<string, unknown>,
): Promise<{ rows: Row[]; streams: Streams }> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const { page, environment: env } = await benchPage(browser, origin);
  results.environment = { ...env, node: process.version };
  line(
    `Chromium: ${env.userAgent}\ncores ${env.cores}, cross-origin isolated: ${env.isolated}, WASM threads ${THREADS}, ${RUNS} runs after ${WARMUP} warm-up runs\n`,
  );

  // 1. End to end, model alone, the peer, the hosted route.
  const rows: Row[] = [];
  const sessionCreate: Record<string, { create: number; firstRun: number }> = {};
  results.sessionCreate = sessionCreate;
  for (const [key, model] of Object.entries(MODELS)) {
    const modelUrl = `${url(model.dir)}/`;
    const alone = await call<{ times: number[]; create: number; firstRun: number }>(page, 'ortAlone', {
      model: modelUrl,
      image: '',
      threads: THREADS,
      runs: RUNS,
      warmup: WARMUP,
    });
    sessionCreate[key] = { create: alone.create, firstRun: alone.firstRun };
    for (const size of IMAGE_SIZES) {
      const base = { model: modelUrl, hfModel: model.hf, image: url(imagePath(size)), threads: THREADS, runs: RUNS, warmup: WARMUP };
      const e = await measureEdgeseg(page, base);
      // The peer takes seconds per 12-megapixel image: one warm-up run there.
      const t = await call<{ times: number[] }>(
        page,
        'transformers',
        size === '4032x3024' ? { ...base, warmup: Math.min(1, WARMUP) } : base,
      );
      const h = await call<{ times: number[]; mask: string }>(page, 'hosted', { ...base, ...hostedConfig(platforms[key as ModelKey]) });
      hostedMasks.set(`${key} ${size}`, h.mask);
      const row: Row = {
        model: model.label,
        image: size,
        equalShare: equalShare(e.mask, h.mask),
        edgeseg: e.edgeseg,
        raw: e.raw,
        stages: e.stages,
        ortAlone: summarize(alone.times),
        transformers: summarize(t.times),
        hosted: summarize(h.times),
      };
      rows.push(row);
      line(
        `${model.label} ${size}: mask = hosted on ${pct(row.equalShare)} of pixels · edgeseg ${spread(row.edgeseg)} · raw ${spread(row.raw)} · model alone ${spread(row.ortAlone)} · transformers.js ${spread(row.transformers)} · hosted ${spread(row.hosted)} ms`,
      );
    }
    await call(page, 'dispose', {});
  }
  results.endToEnd = rows;

  // 2. Cold start, on the bundled model: empty cache, then warm. Measured on a production build of this
  // page on a static server (COOP/COEP), as an app ships edgeseg: a bundled worker, not the dev server's
  // module-by-module loading. The figure it is held to, onnxruntime-web's session creation + first run,
  // comes from section 1 (one file there, its wasm compiled for the first time in that page).
  const platformShapes = platforms.shapes;
  // The package's folder URL as the platform hands it out (signed), from the version record.
  const versionRecord = (await (
    await fetch(`${platformShapes.baseUrl}/edgeseg-demo/shapes/2?api_key=${platformShapes.apiKey}`)
  ).json()) as { version: { model: { packageUrl: string } } };
  const modelFiles = versionRecord.version.model.packageUrl;
  const built = await builtBenchPage();
  const coldPage = await browser.newPage();
  coldPage.on('pageerror', (e) => console.error('page error:', e.message));
  await coldPage.goto(`${built.url}/index.html`);
  await coldPage.waitForFunction(() => (window as unknown as { benchReady?: boolean }).benchReady === true);
  const cold = await call<{ empty: number; warm: number[] }>(coldPage, 'coldStart', {
    model: '',
    modelUrl: modelFiles,
    image: '/scene-640x480.jpg',
    threads: THREADS,
    runs: 0,
    warmup: 0,
  });
  results.coldStart = { empty: cold.empty, warm: summarize(cold.warm) };
  await coldPage.close();
  await built.close();

  // 3. Frames per second on a 640×480 stream, bundled model: one call at a time, and pipelined.
  const streams: Streams = {};
  for (const [label, cfg] of Object.entries({
    'one worker, one frame at a time': { workers: 1, inFlight: 1, threads: 2 },
    'one worker, 2 frames in flight': { workers: 1, inFlight: 2, threads: 2 },
    'two workers × 1 thread, 2 in flight': { workers: 2, inFlight: 2, threads: 1 },
  })) {
    streams[label] = await call(page, 'stream', {
      model: `${url(MODELS.shapes.dir)}/`,
      image: url(imagePath('1024x768')),
      seconds: SECONDS,
      ...cfg,
      runs: 0,
      warmup: 0,
    });
  }
  results.stream = streams;

  // 4. Memory over 1,000 calls.
  const memory = await call<{ after10: number; afterN: number }>(page, 'memory', {
    model: `${url(MODELS.shapes.dir)}/`,
    image: url(imagePath('640x480')),
    threads: THREADS,
    runs: MEMORY_CALLS,
    warmup: 0,
  });
  results.memory = memory;
  await browser.close();
  return { rows, streams };
}

interface AdapterInfo {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  isFallbackAdapter?: boolean;
}
type WebgpuRow = Omit<Row, 'transformers' | 'hosted'>;
interface WebgpuResults {
  environment: Environment;
  /** How Chromium was started for it, and why so. */
  chromium: { args: string[]; launch: string };
  adapter: AdapterInfo | null;
  /** Why the figures say nothing of WebGPU's speed (a software adapter, or none); null on a hardware adapter. */
  notASpeedFigure: string | null;
  runs: number;
  warmup: number;
  /** Where onnxruntime-web's WebGPU EP left its outputs, with default options. */
  outputLocation: string;
  /** Wall time of the whole section, browser start included. */
  seconds: number;
  rows: WebgpuRow[];
}

const describeAdapter = (a: AdapterInfo) =>
  `${[a.vendor || 'unknown vendor', a.architecture, a.device, a.description].filter(Boolean).join(' ')}${a.isFallbackAdapter ? ' (fallback adapter)' : ''}`;

/** Why an adapter is software, from its info; null for a hardware one. */
function softwareAdapter(a: AdapterInfo): string | null {
  const name = `${a.vendor} ${a.architecture} ${a.device} ${a.description}`;
  if (/swiftshader/i.test(name)) return 'software adapter (SwiftShader)';
  if (/llvmpipe|lavapipe/i.test(name)) return 'software adapter (Mesa llvmpipe)';
  if (a.isFallbackAdapter) return 'software adapter (a fallback adapter)';
  return null;
}

/**
 * 7. WebGPU, in a Chromium of its own: edgeseg segment() and segmentRaw() on webgpu, onnxruntime-web's
 * WebGPU EP alone, and edgeseg's mask against the hosted route's. Every model and image on a hardware
 * adapter; on a software one only the bundled model at 640×480 (unless --webgpu-all).
 */
async function webgpuSection(
  origin: string,
  platforms: Record<ModelKey, PlatformServer>,
  hostedMasks: Map<string, string>,
): Promise<WebgpuResults> {
  const t0 = performance.now();
  const extra = process.env.EDGESEG_WEBGPU_ARGS?.split(/\s+/).filter(Boolean) ?? [];
  const open = async (args: string[]) => {
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args });
    const { page, environment } = await benchPage(browser, origin);
    return { browser, page, environment, args, adapter: await call<AdapterInfo | null>(page, 'adapter', {}) };
  };
  let gpu = await open([...CHROMIUM_GPU_ARGS, ...extra]);
  let launch = 'the flags for a real GPU (CHROMIUM_GPU_ARGS)';
  if (!gpu.adapter) {
    // Chromium offered no adapter at all (not even its fallback): SwiftShader, forced, as the WebGPU tests run.
    await gpu.browser.close();
    gpu = await open([...CHROMIUM_WEBGPU_ARGS, ...extra]);
    launch = 'SwiftShader forced (CHROMIUM_WEBGPU_ARGS), after the flags for a real GPU gave no adapter';
  }
  const { page, adapter } = gpu;
  const notASpeedFigure = adapter ? softwareAdapter(adapter) : 'no WebGPU adapter in this Chromium';
  const runs = notASpeedFigure ? (flag('runs') ?? 3) : RUNS;
  const warmup = notASpeedFigure ? (flag('warmup') ?? 1) : WARMUP;
  line(`\nWebGPU: Chromium started with ${launch}: ${gpu.args.join(' ')}`);
  line(adapter ? `adapter: ${describeAdapter(adapter)}` : 'no WebGPU adapter: nothing to measure');
  const every = (Object.keys(MODELS) as ModelKey[]).map((k) => [k, IMAGE_SIZES] as const);
  const cases: ReadonlyArray<readonly [ModelKey, readonly string[]]> = !adapter
    ? []
    : !notASpeedFigure || WEBGPU_ALL
      ? every
      : [['shapes', ['640x480']]];
  if (adapter && notASpeedFigure) {
    line(
      `${notASpeedFigure}: its figures are not a speed measurement; ${WEBGPU_ALL ? 'every model and image (--webgpu-all)' : 'only the bundled shapes model at 640×480 (LRASPP at 512² takes far too long in software; --webgpu-all runs everything)'}, ${runs} runs after ${warmup} warm-up`,
    );
  }

  const rows: WebgpuRow[] = [];
  let outputLocation = '';
  for (const [key, sizes] of cases) {
    const model = MODELS[key];
    const modelUrl = `${url(model.dir)}/`;
    const alone = await call<{ times: number[]; location: string }>(page, 'ortAlone', {
      model: modelUrl,
      image: '',
      threads: THREADS,
      runs,
      warmup,
      backend: 'webgpu',
    });
    outputLocation = alone.location;
    for (const size of sizes) {
      const base = { model: modelUrl, image: url(imagePath(size)), threads: THREADS, runs, warmup, backend: 'webgpu' };
      const e = await measureEdgeseg(page, base);
      // Section 1 asked the hosted route already, unless it did not run.
      const hosted =
        hostedMasks.get(`${key} ${size}`) ??
        (await call<{ mask: string }>(page, 'hosted', { ...base, runs: 1, warmup: 0, ...hostedConfig(platforms[key]) })).mask;
      const row: WebgpuRow = {
        model: model.label,
        image: size,
        equalShare: equalShare(e.mask, hosted),
        edgeseg: e.edgeseg,
        raw: e.raw,
        stages: e.stages,
        ortAlone: summarize(alone.times),
      };
      rows.push(row);
      line(
        `WebGPU ${model.label} ${size}: mask = hosted on ${pct(row.equalShare)} of pixels · edgeseg ${spread(row.edgeseg)} · raw ${spread(row.raw)} · model alone ${spread(row.ortAlone)} ms · end to end ÷ model alone ${(row.edgeseg.median / row.ortAlone.median).toFixed(2)}`,
      );
    }
    await call(page, 'dispose', {});
  }
  await gpu.browser.close();
  return {
    environment: gpu.environment,
    chromium: { args: gpu.args, launch },
    adapter,
    notASpeedFigure,
    runs,
    warmup,
    outputLocation,
    seconds: (performance.now() - t0) / 1000,
    rows,
  };
}

function webgpuReport(w: WebgpuResults): string {
  const launched = `Chromium started with ${w.chromium.launch}: \`${w.chromium.args.join(' ')}\`.`;
  if (!w.adapter) return `\n### WebGPU in Chromium\n\n${launched}\n\n${w.notASpeedFigure}: nothing measured.`;
  const out = [
    `\n### End to end in Chromium on WebGPU, encoded JPEG in; ms, median (p10–p90) of ${w.runs} runs after ${w.warmup} warm-up runs\n`,
    launched,
  ];
  out.push(
    `Adapter: ${describeAdapter(w.adapter)}${w.notASpeedFigure ? ` — a ${w.notASpeedFigure}: these figures show that the harness runs and what the masks are, not how fast WebGPU is` : ''}.`,
  );
  out.push(
    `The model alone: onnxruntime-web's WebGPU EP, graphOptimizationLevel all, each run session.run with its outputs on the CPU (the EP returned \`${w.outputLocation}\` tensors${w.outputLocation === 'cpu' ? ', so its run includes their download' : ', read back in the timed run'}). The section took ${w.seconds.toFixed(0)} s.\n`,
  );
  out.push(
    table(
      [
        'model',
        'image',
        'edgeseg segment()',
        'segmentRaw()',
        'model alone (WebGPU EP, logits on the CPU)',
        'end to end ÷ model alone',
        'mask = hosted',
      ],
      w.rows.map((r) => [
        r.model,
        r.image,
        spread(r.edgeseg),
        spread(r.raw),
        spread(r.ortAlone),
        (r.edgeseg.median / r.ortAlone.median).toFixed(2),
        pct(r.equalShare),
      ]),
    ),
  );
  out.push(
    "\n### edgeseg stage breakdown on WebGPU, ms (median); `run` submits the model's GPU work, `postprocess` waits for it and the shader\n",
  );
  out.push(stageTable(w.rows));
  return out.join('\n');
}

function webgpuTargets(w: WebgpuResults): void {
  const target = 'WebGPU end to end ≤ 1.2 × the model alone at 1024×768 (LRASPP)';
  const ratio = (r: WebgpuRow) => r.edgeseg.median / r.ortAlone.median;
  const lr = w.rows.find((r) => r.image === '1024x768' && r.model.startsWith('LRASPP'));
  if (!w.adapter) judge(target, w.notASpeedFigure!, 'NOT MEASURED');
  else if (w.notASpeedFigure) {
    const shown = lr
      ? `${ratio(lr).toFixed(2)}×`
      : `LRASPP not run; ${w.rows[0]!.model} at ${w.rows[0]!.image}: ${ratio(w.rows[0]!).toFixed(2)}×`;
    judge(target, `${w.notASpeedFigure}: not a speed figure, ${shown}`, 'NOT MEASURED');
  } else judge(target, `${ratio(lr!).toFixed(2)}×`, ratio(lr!) <= 1.2);
  // The masks are a correctness figure: a software adapter answers it as well as a real GPU.
  if (!w.rows.length) return;
  const worst = Math.min(...w.rows.map((r) => r.equalShare));
  const all = w.rows.length === Object.keys(MODELS).length * IMAGE_SIZES.length;
  judge(
    'edgeseg WebGPU payload equals the hosted route (onnxruntime-node) on ≥ 99.99% of pixels, every model and image',
    `${pct(worst)}${all ? '' : ` (${w.rows.map((r) => `${r.model} at ${r.image}`).join(', ')} only)`}`,
    worst < 0.9999 ? false : all || 'NOT MEASURED',
  );
}

/** edgeseg segment() with its stage breakdown, then segmentRaw(), on the page's bench functions; and the last mask. */
async function measureEdgeseg(
  page: Page,
  base: Record<string, unknown>,
): Promise<{ edgeseg: Summary; raw: Summary; stages: Stages; mask: string }> {
  const e = await call<{ times: number[]; stages: Record<string, number[]>; mask: string }>(page, 'edgeseg', { ...base, raw: false });
  const r = await call<{ times: number[] }>(page, 'edgeseg', { ...base, raw: true });
  const stages = Object.fromEntries(Object.entries(e.stages).map(([k, v]) => [k, summarize(v)]));
  return { edgeseg: summarize(e.times), raw: summarize(r.times), stages, mask: e.mask };
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

const STAGES = ['decode', 'preprocess', 'run', 'postprocess', 'encode', 'total'];
/** edgeseg's time per stage (median), and its whole call over the model alone's. */
const stageTable = (rows: Array<{ model: string; image: string; stages: Stages; edgeseg: Summary; ortAlone: Summary }>) =>
  table(
    ['model', 'image', ...STAGES, 'end to end ÷ model alone'],
    rows.map((r) => [
      r.model,
      r.image,
      ...STAGES.map((s) => (r.stages[s] ? ms(r.stages[s].median) : '—')),
      (r.edgeseg.median / r.ortAlone.median).toFixed(2),
    ]),
  );

function formatReport(
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

// The people section.

const PEOPLE_SIZES = ['640x480', '1280x720'] as const;
/** The parity check's two models, with the bundled names they go by and their folders. */
const PEOPLE_MODELS = PEOPLE_VARIANTS.map((v) => ({
  ...v,
  label: `${v.name === 'general' ? 'people' : `people-${v.name}`} (${v.height}×${v.width})`,
  dir: join(ROOT, 'models', 'people', v.name),
}));
type PeopleRow = { image: string; edgeseg: Summary; raw: Summary; stages: Stages; litertApp: Summary; shareDiff: number };
interface PeopleResults {
  alone: { model: string; threads: number; onnxruntime: Summary; litert: Summary }[];
  rows: PeopleRow[];
  streams: Streams;
}

/** A photo of a person (models/people/samples) at each bench size, JPEG, cropped to fill (bench/out). */
async function peopleImages(): Promise<Record<string, string>> {
  const { default: sharp } = await import('sharp');
  const paths: Record<string, string> = {};
  for (const size of PEOPLE_SIZES) {
    const [w, h] = size.split('x').map(Number) as [number, number];
    paths[size] = join(OUT, `people-${size}.jpg`);
    await sharp(join(ROOT, 'models', 'people', 'samples', 'images', 'astronaut.png'))
      .resize(w, h, { fit: 'cover' })
      .jpeg({ quality: 90 })
      .toFile(paths[size]);
  }
  return paths;
}

async function peopleSection(origin: string): Promise<PeopleResults> {
  const images = await peopleImages();
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const { page, environment } = await benchPage(browser, origin);
  line(
    `\nPeople: edgeseg WASM vs LiteRT.js (XNNPACK) on the original .tflite, ${THREADS} threads both; ${environment.isolated ? 'cross-origin isolated' : 'NOT cross-origin isolated'}`,
  );
  const tflite = (file: string) => url(join(ROOT, 'node_modules', '@mediapipe', 'selfie_segmentation', file));
  const alone: PeopleResults['alone'] = [];
  // The model alone on the section's threads (the end-to-end comparison's), and on one thread, where
  // neither runtime's thread pool is in the figure. Each thread count in a page of its own: onnxruntime-web
  // sets up its WASM once per page, with the threads asked first, and ignores numThreads after that.
  for (const threads of [...new Set([THREADS, 1])]) {
    const { page: alonePage } = await benchPage(browser, origin);
    for (const m of PEOPLE_MODELS) {
      const o = await call<{ times: number[] }>(alonePage, 'ortAlone', {
        model: `${url(m.dir)}/`,
        image: '',
        threads,
        runs: RUNS,
        warmup: WARMUP,
      });
      const l = await call<{ times: number[] }>(alonePage, 'litertAlone', {
        tflite: tflite(m.tflite),
        height: m.height,
        width: m.width,
        threads,
        runs: RUNS,
        warmup: WARMUP,
      });
      alone.push({ model: m.label, threads, onnxruntime: summarize(o.times), litert: summarize(l.times) });
      line(
        `${m.label} alone, ${threads} thread(s): onnxruntime-web ${spread(summarize(o.times))} · LiteRT.js ${spread(summarize(l.times))} ms`,
      );
    }
    await alonePage.close();
  }
  const m = PEOPLE_MODELS[0]!;
  const rows: PeopleRow[] = [];
  for (const size of PEOPLE_SIZES) {
    const base = { model: `${url(m.dir)}/`, image: url(images[size]!), threads: THREADS, runs: RUNS, warmup: WARMUP };
    const e = await measureEdgeseg(page, base);
    const app = await call<{ times: number[]; personPixels: number }>(page, 'litertApp', {
      tflite: tflite(m.tflite),
      height: m.height,
      width: m.width,
      threads: THREADS,
      runs: RUNS,
      warmup: WARMUP,
      image: base.image,
    });
    const [w, h] = size.split('x').map(Number) as [number, number];
    const ids = decodeMaskPng(base64ToBytes(e.mask)).classIds;
    // How much of the image each calls "person": the app path's mask is upscaled by the canvas, edgeseg's
    // logits bilinearly before the sigmoid, so they differ along the outline only.
    const shareDiff = Math.abs(ids.reduce((n, c) => n + c, 0) - app.personPixels) / (w * h);
    const row: PeopleRow = { image: size, edgeseg: e.edgeseg, raw: e.raw, stages: e.stages, litertApp: summarize(app.times), shareDiff };
    rows.push(row);
    line(`people ${size}: edgeseg ${spread(row.edgeseg)} · raw ${spread(row.raw)} · LiteRT.js app path ${spread(row.litertApp)} ms`);
  }
  await call(page, 'dispose', {});
  const streams: Streams = {};
  for (const [label, cfg] of Object.entries({
    'one worker, one frame at a time': { workers: 1, inFlight: 1, threads: 2 },
    'one worker, 2 frames in flight': { workers: 1, inFlight: 2, threads: 2 },
    'two workers × 1 thread, 2 in flight': { workers: 2, inFlight: 2, threads: 1 },
  })) {
    streams[label] = await call(page, 'stream', {
      model: `${url(m.dir)}/`,
      image: url(images['1280x720']!),
      seconds: SECONDS,
      ...cfg,
      runs: 0,
      warmup: 0,
    });
    line(`people stream, ${label}: ${streams[label].fps.toFixed(1)} frames/s`);
  }
  await browser.close();
  return { alone, rows, streams };
}

function peopleReport(p: PeopleResults): string {
  const out = [
    `\n### People: edgeseg WASM against LiteRT.js (XNNPACK), ${THREADS} threads both; ms, median (p10–p90) of ${RUNS} runs after ${WARMUP} warm-up runs\n`,
  ];
  out.push(
    'The model alone (onnxruntime-web on the converted ONNX; LiteRT.js on the original .tflite; a prepared tensor in, the output read back):\n',
  );
  out.push(
    table(
      ['model', 'threads', 'onnxruntime-web alone', 'LiteRT.js alone', 'onnxruntime ÷ LiteRT'],
      p.alone.map((a) => [
        a.model,
        String(a.threads),
        spread(a.onnxruntime),
        spread(a.litert),
        (a.onnxruntime.median / a.litert.median).toFixed(2),
      ]),
    ),
  );
  out.push(
    "\nEnd to end, encoded JPEG in, a person mask at the image's size out (people model): edgeseg against LiteRT.js plus the code an app writes around it (decode, canvas stretch to 256², float conversion, run, threshold, canvas upscale to the image, threshold):\n",
  );
  out.push(
    table(
      [
        'image',
        'edgeseg segment()',
        'segmentRaw()',
        'LiteRT.js app path',
        'segment() ÷ app',
        'segmentRaw() ÷ app',
        'person share, |edgeseg − app|',
      ],
      p.rows.map((r) => [
        r.image,
        spread(r.edgeseg),
        spread(r.raw),
        spread(r.litertApp),
        (r.edgeseg.median / r.litertApp.median).toFixed(2),
        (r.raw.median / r.litertApp.median).toFixed(2),
        `${(r.shareDiff * 100).toFixed(2)}%`,
      ]),
    ),
  );
  out.push('\nedgeseg stage breakdown, people model, ms (median):\n');
  out.push(
    stageTable(
      p.rows.map((r) => ({ model: 'people', image: r.image, stages: r.stages, edgeseg: r.edgeseg, ortAlone: p.alone[0]!.onnxruntime })),
    ),
  );
  out.push('');
  for (const [k, v] of Object.entries(p.streams)) out.push(`- Stream of 640×480 frames, people model, ${k}: ${v.fps.toFixed(1)} frames/s.`);
  return out.join('\n');
}

function peopleTargets(p: PeopleResults): void {
  for (const r of p.rows) {
    const ratio = r.edgeseg.median / r.litertApp.median;
    const raw = r.raw.median / r.litertApp.median;
    judge(
      `people: edgeseg end to end ≤ 1.0 × the LiteRT.js app path at ${r.image}`,
      `segment() ${ratio.toFixed(2)}×, segmentRaw() ${raw.toFixed(2)}×`,
      Math.min(ratio, raw) <= 1.0,
    );
  }
  const best = Math.max(...Object.values(p.streams).map((s) => s.fps));
  judge('people: live stream ≥ 60 frames/s at 640×480 (WASM)', `${best.toFixed(1)} frames/s`, best >= 60);
}

/** `--people-only`: the people section alone, on its own page server; bench/out/people.{json,md}. */
async function peopleOnly(): Promise<void> {
  await mkdir(OUT, { recursive: true });
  const server = await benchServer();
  const origin = server.resolvedUrls!.local[0]!.replace(/\/$/, '');
  try {
    const people = await peopleSection(origin);
    verdicts.length = 0;
    const report = `${peopleReport(people)}\n\n### Targets\n\n`;
    peopleTargets(people);
    const md =
      report +
      table(
        ['target', 'measured', 'verdict'],
        verdicts.map((v) => [v.target, v.measured, v.outcome]),
      );
    line(`\n${md}`);
    await writeFile(
      join(OUT, 'people.json'),
      JSON.stringify({ date: new Date().toISOString(), runs: RUNS, warmup: WARMUP, threads: THREADS, ...people, verdicts }, null, 1),
    );
    await writeFile(join(OUT, 'people.md'), md);
  } finally {
    await server.close();
  }
}

/** A production build of bench/<page> (edgeseg from source) into bench/out/<out>; returns the folder. */
async function buildPage(
  page: string,
  out: string,
  extra: { define?: Record<string, string>; build?: Record<string, unknown> },
): Promise<string> {
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
  const dir = await buildPage('web', 'web-build', {
    define: { __TRANSFORMERS_WASM__: JSON.stringify({ mjs: '', wasm: '' }), __LITERT_WASM__: '""' },
    build: { chunkSizeWarningLimit: 1e6 },
  });
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
    for (const m of code.matchAll(/(?:^|[;\n}])\s*import\s*(?:[\w{},*\s$]+from\s*)?["']\.\/([^"']+)["']/g))
      await visit(join('assets', m[1]!));
  };
  await visit(entry);
  return total;
}

await main();

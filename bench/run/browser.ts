// The browser sections: edgeseg, the model alone, transformers.js and the hosted route in Chromium (WASM).
import { chromium } from 'playwright-core';
import { type PlatformServer } from '../../server/index.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../test/chromium.js';
import { IMAGE_SIZES, imagePath, MODELS } from '../paths.js';
import { spread, summarize } from '../stats.js';
import { RUNS, WARMUP, SECONDS, MEMORY_CALLS, THREADS, line } from './options.js';
import {
  call,
  url,
  hostedConfig,
  type ModelKey,
  benchPage,
  type Row,
  type Streams,
  measureEdgeseg,
  equalShare,
  pct,
  builtBenchPage,
} from './harness.js';

/** Sections 1–4, in the WASM browser: end to end with its peers, cold start, stream, memory. */
export async function browserSections(
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

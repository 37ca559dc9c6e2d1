// The people section: the bundled people model on edgeseg against LiteRT.js on the original .tflite.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../test/chromium.js';
import { ROOT } from '../paths.js';
import { decodeMaskPng } from '../../src/payload/index.js';
import { base64ToBytes } from '../../src/payload/base64.js';
import { spread, summarize, table, type Summary } from '../stats.js';
import { PEOPLE_VARIANTS } from '../../models/people/parity/cases.js';
import { RUNS, WARMUP, SECONDS, THREADS, OUT, line } from './options.js';
import { verdicts, judge, call, url, benchServer, benchPage, type Stages, type Streams, measureEdgeseg, stageTable } from './harness.js';

// The people section.

export const PEOPLE_SIZES = ['640x480', '1280x720'] as const;
/** The parity check's two models, with the bundled names they go by and their folders. */
export const PEOPLE_MODELS = PEOPLE_VARIANTS.map((v) => ({
  ...v,
  label: `${v.name === 'general' ? 'people' : `people-${v.name}`} (${v.height}×${v.width})`,
  dir: join(ROOT, 'models', 'people', v.name),
  /** The original `.tflite` that LiteRT.js and MediaPipe run. */
  tflitePath: join(ROOT, 'node_modules', '@mediapipe', 'selfie_segmentation', v.tflite),
}));
export type PeopleModel = (typeof PEOPLE_MODELS)[number];

/** Model `m` alone in `page` at `threads`: onnxruntime-web's `session.run` and LiteRT.js's, same runs. */
export async function measureAlone(page: Page, m: PeopleModel, threads: number): Promise<{ onnxruntime: Summary; litert: Summary }> {
  const runs = { threads, runs: RUNS, warmup: WARMUP };
  const o = await call<{ times: number[] }>(page, 'ortAlone', { model: `${url(m.dir)}/`, image: '', ...runs });
  const l = await call<{ times: number[] }>(page, 'litertAlone', { tflite: url(m.tflitePath), height: m.height, width: m.width, ...runs });
  return { onnxruntime: summarize(o.times), litert: summarize(l.times) };
}
export type PeopleRow = { image: string; edgeseg: Summary; raw: Summary; stages: Stages; litertApp: Summary; shareDiff: number };
export interface PeopleResults {
  alone: { model: string; threads: number; onnxruntime: Summary; litert: Summary }[];
  rows: PeopleRow[];
  streams: Streams;
}

/** A photo of a person (models/people/samples) at each size (`WxH`), JPEG, cropped to fill (bench/out). */
export async function peopleImages(sizes: readonly string[] = PEOPLE_SIZES): Promise<Record<string, string>> {
  const { default: sharp } = await import('sharp');
  const paths: Record<string, string> = {};
  for (const size of sizes) {
    const [w, h] = size.split('x').map(Number) as [number, number];
    paths[size] = join(OUT, `people-${size}.jpg`);
    await sharp(join(ROOT, 'models', 'people', 'samples', 'images', 'astronaut.png'))
      .resize(w, h, { fit: 'cover' })
      .jpeg({ quality: 90 })
      .toFile(paths[size]);
  }
  return paths;
}

export async function peopleSection(origin: string): Promise<PeopleResults> {
  const images = await peopleImages();
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const { page, environment } = await benchPage(browser, origin);
  line(
    `\nPeople: edgeseg WASM vs LiteRT.js (XNNPACK) on the original .tflite, ${THREADS} threads both; ${environment.isolated ? 'cross-origin isolated' : 'NOT cross-origin isolated'}`,
  );
  const alone: PeopleResults['alone'] = [];
  // The model alone on the section's threads (the end-to-end comparison's), and on one thread, where
  // neither runtime's thread pool is in the figure. Each thread count in a page of its own: onnxruntime-web
  // sets up its WASM once per page, with the threads asked first, and ignores numThreads after that.
  for (const threads of [...new Set([THREADS, 1])]) {
    const { page: alonePage } = await benchPage(browser, origin);
    for (const m of PEOPLE_MODELS) {
      const measured = await measureAlone(alonePage, m, threads);
      alone.push({ model: m.label, threads, ...measured });
      line(
        `${m.label} alone, ${threads} thread(s): onnxruntime-web ${spread(measured.onnxruntime)} · LiteRT.js ${spread(measured.litert)} ms`,
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
      tflite: url(m.tflitePath),
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

export function peopleReport(p: PeopleResults): string {
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

export function peopleTargets(p: PeopleResults): void {
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
export async function peopleOnly(): Promise<void> {
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

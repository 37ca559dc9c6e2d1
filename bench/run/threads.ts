// The threads section: edgeseg's WASM thread count for stills and live video, 1, 2 and every core's worth,
// against LiteRT.js on the same cores with the same counts, each ratio from one run; and the default's
// own figures, judged against the targets. Fewer cores: run it under `taskset -c 0` (a 1-core machine).
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../test/chromium.js';
import { defaultThreads, type ThreadChoice } from '../../src/runtime/threads.js';
import { ratioInterval, spread, summarize, table, type Summary } from '../stats.js';
import type { VideoResult } from '../web/video.js';
import { RUNS, WARMUP, OUT, line, textFlag, flag, quick } from './options.js';
import { verdicts, judge, call, url, benchServer, benchPage, STAGES } from './harness.js';
import { PEOPLE_MODELS, peopleImages, measureAlone } from './people.js';
import { cameraBrowser, videoCase, SECONDS as VIDEO_SECONDS, WARMUP_SECONDS } from './video.js';
import { OtherWork } from './other-work.js';

/** The cores this run has (a task set counts: `taskset -c 0` gives 1); Chromium reports the same. */
const CORES = availableParallelism();
const list = (name: string) =>
  textFlag(name)
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
/** The thread counts measured (`--thread-counts 1,2,4`): by default 1, 2 and every core's worth. */
const COUNTS = (list('thread-counts')?.map(Number) ?? [1, 2, CORES]).filter(
  (n, i, all) => Number.isInteger(n) && n >= 1 && all.indexOf(n) === i,
);
const STILL_SIZES = ['640x480', '1920x1080'] as const;
/** The cameras (`--thread-cameras 640x480@60,1280x720@120`): both sizes at 60 and 120 frames/s by default. */
const CAMERAS = (list('thread-cameras') ?? ['640x480@60', '1280x720@60', '640x480@120', '1280x720@120']).map((text) => {
  const [size, fps] = text.split('@') as [string, string];
  return { size, fps: Number(fps) };
});
/** `--thread-waits true,false`: edgeseg also with these `waitForMask` at its default threads (its mode's share of the figure). */
const WAITS = (list('thread-waits') ?? []).map((w) => {
  if (w !== 'true' && w !== 'false') throw new Error('--thread-waits takes true and/or false');
  return w === 'true';
});
/** `--threads-video-only` / `--threads-stills-only`: one half alone. */
const VIDEO = !process.argv.includes('--threads-stills-only');
const STILLS = !process.argv.includes('--threads-video-only');
/** Rounds the runs of each side are split into, taken in turn, so that a change of load meets both sides. */
const ROUNDS = quick ? 2 : 4;

/**
 * Other work on the machine (other processes' CPU, `other-work.ts`): before each case the bench waits up to
 * `--quiet-wait N` minutes (0 by default) for 5 s in which other work kept under 0.15 of a core busy, and a
 * case during which other work kept more than 0.25 of a core busy is measured again, up to `--quiet-retries N`
 * times (0 by default). What other work took during each case is reported beside its figure.
 */
const QUIET_WAIT_MS = (flag('quiet-wait') ?? 0) * 60_000;
const QUIET_RETRIES = flag('quiet-retries') ?? 0;
const QUIET_CORES = 0.15;
const NOISY_CORES = 0.25;
let other: OtherWork | null = null;

const ratio = (a: number, b: number) => (a / b).toFixed(2);
/** Other processes' cores during a case (null without /proc), and the 1-minute load average as it started. */
type Noise = { others: number | null; load: number };
const noiseText = (n: Noise) => (n.others === null ? `load ${n.load.toFixed(1)}` : `${n.others.toFixed(2)}`);

/** `run` once the machine is quiet (QUIET_WAIT_MS at most), again while other work was heavy (QUIET_RETRIES). */
async function measured<T>(label: string, run: () => Promise<T>): Promise<T & { noise: Noise }> {
  for (let attempt = 0; ; attempt++) {
    if (QUIET_WAIT_MS > 0 && other) {
      const waited = await other.quiet(QUIET_CORES, 5000, QUIET_WAIT_MS);
      if (waited > 10_000) line(`  (waited ${(waited / 1000).toFixed(0)} s for other work to end before ${label})`);
    }
    const mark = other?.mark();
    const load = loadavg()[0]!;
    const result = await run();
    const noise: Noise = { others: mark && other ? other.since(mark) : null, load };
    if (noise.others === null || noise.others <= NOISY_CORES || attempt >= QUIET_RETRIES) return { ...result, noise };
    line(`  (${label}: other work kept ${noise.others.toFixed(2)} cores busy; measured again)`);
  }
}

export interface StillRow {
  threads: number;
  size: string;
  edgeseg: Summary;
  raw: Summary;
  app: Summary;
  /** 90% interval of segment() ÷ app. */
  interval: { lo: number; hi: number };
  stages: Record<string, Summary>;
  noise: Noise;
}
export interface AloneRow {
  threads: number;
  onnxruntime: Summary;
  litert: Summary;
  noise: Noise;
}
export interface VideoThreadRow {
  camera: string;
  fps: number;
  /** edgeseg's runs by label (`default`, `1`, `2`, …) and the peer's by its thread count. */
  edgeseg: Record<string, VideoResult & { noise: Noise }>;
  peer: Record<string, VideoResult & { noise: Noise }>;
}
export interface ThreadsResults {
  cores: number;
  browserCores: number;
  counts: number[];
  stillsDefault: ThreadChoice | null;
  alone: AloneRow[];
  stills: StillRow[];
  video: VideoThreadRow[];
}

const m = PEOPLE_MODELS[0]!;

/** Stills at `threads` in a page of its own (onnxruntime-web and LiteRT.js each set their Wasm up once per page). */
async function stillsAt(page: Page, threads: number, images: Record<string, string>): Promise<{ alone: AloneRow; rows: StillRow[] }> {
  const per = Math.max(1, Math.ceil(RUNS / ROUNDS));
  const alone: AloneRow = await measured(`the model alone at ${threads}`, async () => ({
    threads,
    ...(await measureAlone(page, m, threads)),
  }));
  line(
    `  ${threads} thread(s), the model alone: onnxruntime-web ${spread(alone.onnxruntime)} · LiteRT.js ${spread(alone.litert)} ms (other work ${noiseText(alone.noise)})`,
  );
  const rows: StillRow[] = [];
  for (const size of STILL_SIZES) {
    const base = { model: `${url(m.dir)}/`, image: url(images[size]!), threads };
    const app = { tflite: url(m.tflitePath), height: m.height, width: m.width, threads, image: base.image };
    const row: StillRow = await measured(`stills at ${threads}, ${size}`, async () => {
      const times = { edgeseg: [] as number[], raw: [] as number[], app: [] as number[] };
      const stages: Record<string, number[]> = {};
      for (let r = 0; r < ROUNDS; r++) {
        const warmup = r === 0 ? WARMUP : 0;
        const e = await call<{ times: number[]; stages: Record<string, number[]> }>(page, 'edgeseg', {
          ...base,
          raw: false,
          runs: per,
          warmup,
        });
        const raw = await call<{ times: number[] }>(page, 'edgeseg', { ...base, raw: true, runs: per, warmup });
        const a = await call<{ times: number[] }>(page, 'litertApp', { ...app, runs: per, warmup });
        times.edgeseg.push(...e.times);
        times.raw.push(...raw.times);
        times.app.push(...a.times);
        for (const [k, v] of Object.entries(e.stages)) (stages[k] ??= []).push(...v);
      }
      return {
        threads,
        size,
        edgeseg: summarize(times.edgeseg),
        raw: summarize(times.raw),
        app: summarize(times.app),
        interval: ratioInterval(times.edgeseg, times.app),
        stages: Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, summarize(v)])),
      };
    });
    rows.push(row);
    line(
      `  ${threads} thread(s), ${size}: segment() ${spread(row.edgeseg)} · segmentRaw() ${spread(row.raw)} · LiteRT.js app path ${spread(row.app)} ms (${ratio(row.edgeseg.median, row.app.median)}×; other work ${noiseText(row.noise)} cores)`,
    );
  }
  return { alone, rows };
}

async function stillsSection(origin: string, results: ThreadsResults): Promise<void> {
  const images = await peopleImages(STILL_SIZES);
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    // The default, as an app that names no count gets it: what it picked, and why.
    const { page: first, environment } = await benchPage(browser, origin);
    results.browserCores = environment.cores;
    const d = await call<{ choice: ThreadChoice }>(first, 'edgeseg', {
      model: `${url(m.dir)}/`,
      image: url(images['640x480']!),
      threads: 0,
      defaultThreads: true,
      raw: true,
      runs: 1,
      warmup: 0,
    });
    results.stillsDefault = d.choice;
    await first.close();
    line(`Stills: the default here is ${d.choice.numThreads} thread(s): ${d.choice.reason}`);
    // The default's count among them, where it is none of 1, 2 and every core.
    for (const threads of [...new Set([...COUNTS, d.choice.numThreads])]) {
      const { page } = await benchPage(browser, origin);
      const { alone, rows } = await stillsAt(page, threads, images);
      results.alone.push(alone);
      results.stills.push(...rows);
      await call(page, 'dispose', {});
      await page.close();
    }
  } finally {
    await browser.close();
  }
}

async function videoSection(origin: string, results: ThreadsResults): Promise<void> {
  const fallback = defaultThreads(CORES, 'video');
  for (const { size, fps } of CAMERAS) {
    const [w, h] = size.split('x').map(Number) as [number, number];
    const browser = await cameraBrowser(w, h, fps);
    const row: VideoThreadRow = { camera: size, fps, edgeseg: {}, peer: {} };
    const timed = (label: string, run: () => Promise<VideoResult>) => measured(`${label}, ${size} at ${fps}`, run);
    try {
      // edgeseg as it comes (no numThreads), each other count of edgeseg's, and the peer at each count, in
      // turn: the default first, then the peer, so that a change of load is spread over both sides.
      const edgesegCounts = COUNTS.filter((n) => n !== fallback);
      const peerCounts = [...COUNTS];
      row.edgeseg.default = await timed('edgeseg as it comes', () => videoCase(browser, origin, 'edgeseg', { fps, threads: 0 }));
      while (edgesegCounts.length || peerCounts.length) {
        const p = peerCounts.shift();
        if (p !== undefined) row.peer[p] = await timed(`the peer at ${p}`, () => videoCase(browser, origin, 'peer', { fps, threads: p }));
        const e = edgesegCounts.shift();
        if (e !== undefined)
          row.edgeseg[e] = await timed(`edgeseg at ${e}`, () =>
            videoCase(browser, origin, 'edgeseg', { fps, threads: 0, edgesegThreads: e }),
          );
      }
      for (const waitForMask of WAITS)
        row.edgeseg[`wait:${waitForMask}`] = await timed(`edgeseg, waitForMask: ${waitForMask}`, () =>
          videoCase(browser, origin, 'edgeseg', { fps, threads: 0, waitForMask }),
        );
    } finally {
      await browser.close();
    }
    results.video.push(row);
    const d = row.edgeseg.default;
    line(
      `video ${size} at ${fps} frames/s: ${edgesegRuns(row)
        .map(([k, v]) => `edgeseg ${runLabel(k, v)} ${v.fps.toFixed(1)} frames/s, ${v.maskFps.toFixed(1)} new masks/s`)
        .join(' · ')} · ${Object.entries(row.peer)
        .map(([k, v]) => `peer ${k} thread(s) ${v.maskFps.toFixed(1)}`)
        .join(' · ')} (default waited ${(100 * (d.waitedShare ?? 0)).toFixed(0)}%, other work ${noiseText(d.noise)} cores)`,
    );
  }
}

/** edgeseg's runs of a camera: the default first, then each count, then each `waitForMask` (`wait:true`). */
const edgesegRuns = (r: VideoThreadRow) => {
  const rank = (k: string) => (k === 'default' ? -1 : k.startsWith('wait:') ? 1000 + Number(k === 'wait:false') : Number(k));
  return Object.entries(r.edgeseg).sort(([a], [b]) => rank(a) - rank(b));
};
/** What an edgeseg run of a camera was. */
const runLabel = (k: string, v: VideoResult) =>
  k === 'default'
    ? `as it comes (${v.threads?.numThreads})`
    : k.startsWith('wait:')
      ? `waitForMask: ${k.slice(5)} (${v.threads?.numThreads})`
      : `${k} thread(s)`;

/** The peer's best count on a camera: the most masks a second. */
const bestPeer = (r: VideoThreadRow) => Object.values(r.peer).reduce((a, b) => (b.maskFps > a.maskFps ? b : a));

export function threadsReport(t: ThreadsResults): string {
  const out = [
    `### Threads: ${t.cores} core(s) (the browser reports ${t.browserCores}); edgeseg WASM beside LiteRT.js (XNNPACK) on the same cores and counts\n`,
  ];
  if (t.stills.length) {
    out.push(
      `Stills, ms, median (p10–p90) of ${RUNS} runs after ${WARMUP} warm-up runs, each side's runs in ${ROUNDS} turns; the default here: ${t.stillsDefault?.numThreads} thread(s) (${t.stillsDefault?.reason}).\n`,
    );
    out.push(
      table(
        ['threads', 'onnxruntime-web alone', 'LiteRT.js alone', 'onnxruntime ÷ LiteRT', 'other work, cores'],
        t.alone.map((a) => [
          String(a.threads),
          spread(a.onnxruntime),
          spread(a.litert),
          ratio(a.onnxruntime.median, a.litert.median),
          noiseText(a.noise),
        ]),
      ),
    );
    out.push('');
    out.push(
      table(
        [
          'image',
          'threads',
          'segment()',
          'segmentRaw()',
          'LiteRT.js app path',
          'segment() ÷ app (90%)',
          'segmentRaw() ÷ app',
          'other work, cores',
        ],
        t.stills.map((r) => [
          r.size,
          `${r.threads}${r.threads === t.stillsDefault?.numThreads ? ' (default)' : ''}`,
          spread(r.edgeseg),
          spread(r.raw),
          spread(r.app),
          `${ratio(r.edgeseg.median, r.app.median)} (${r.interval.lo.toFixed(2)}–${r.interval.hi.toFixed(2)})`,
          ratio(r.raw.median, r.app.median),
          noiseText(r.noise),
        ]),
      ),
    );
    out.push("\nedgeseg's stages (median, ms) beside the app path and the LiteRT.js model alone at the same count:\n");
    out.push(
      table(
        ['image', 'threads', ...STAGES, 'segment()', 'LiteRT.js alone', 'app path', 'app path − LiteRT.js alone'],
        t.stills.map((r) => {
          const alone = t.alone.find((a) => a.threads === r.threads)!;
          return [
            r.size,
            String(r.threads),
            ...STAGES.map((s) => (r.stages[s] ? r.stages[s].median.toFixed(2) : '—')),
            r.edgeseg.median.toFixed(2),
            alone.litert.median.toFixed(2),
            r.app.median.toFixed(2),
            (r.app.median - alone.litert.median).toFixed(2),
          ];
        }),
      ),
    );
  }
  if (t.video.length) {
    out.push(
      `\nVideo: createVideoEffect's blur (\`waitForMask: 'auto'\`, compositor \`'auto'\`) against the LiteRT.js main-thread blur, ${VIDEO_SECONDS} s per case after ${WARMUP_SECONDS} s of warm-up; edgeseg as it comes (the default threads) and at each count; the peer at each count:\n`,
    );
    out.push(
      table(
        [
          'camera',
          'runs',
          'threads',
          'frames/s',
          'new masks/s',
          'waited',
          'latency p50 / p95, ms',
          'mask age p50, ms',
          'other work, cores',
        ],
        t.video.flatMap((r) => [
          ...edgesegRuns(r).map(([k, v]) => [
            `${r.camera} @ ${r.fps}`,
            `edgeseg${k === 'default' ? ' as it comes' : k.startsWith('wait:') ? `, waitForMask: ${k.slice(5)}` : ''}`,
            String(v.threads?.numThreads ?? k),
            v.fps.toFixed(1),
            v.maskFps.toFixed(1),
            `${(100 * (v.waitedShare ?? 0)).toFixed(0)}%`,
            `${v.latency.p50.toFixed(0)} / ${v.latency.p95.toFixed(0)}`,
            v.maskAge.p50.toFixed(0),
            noiseText(v.noise),
          ]),
          ...Object.entries(r.peer).map(([k, v]) => [
            `${r.camera} @ ${r.fps}`,
            'LiteRT.js peer',
            k,
            v.fps.toFixed(1),
            v.maskFps.toFixed(1),
            '—',
            `${v.latency.p50.toFixed(0)} / ${v.latency.p95.toFixed(0)}`,
            '0',
            noiseText(v.noise),
          ]),
        ]),
      ),
    );
    out.push("\nNew masks a second, edgeseg ÷ the peer's (same run):\n");
    const counts = [...new Set(t.video.flatMap((r) => Object.keys(r.peer)))];
    out.push(
      table(
        ['camera', 'edgeseg', ...counts.map((c) => `÷ peer at ${c}`), "÷ the peer's best"],
        t.video.flatMap((r) =>
          edgesegRuns(r).map(([k, v]) => [
            `${r.camera} @ ${r.fps}`,
            runLabel(k, v),
            ...counts.map((c) => (r.peer[c] ? ratio(v.maskFps, r.peer[c].maskFps) : '—')),
            ratio(v.maskFps, bestPeer(r).maskFps),
          ]),
        ),
      ),
    );
    const d = t.video[0]?.edgeseg.default?.threads;
    if (d) out.push(`\nThe default for video here: ${d.numThreads} thread(s), ${d.reason}.`);
  }
  return out.join('\n');
}

/** The targets, for the default options: masks against the peer's best count, frames, latency where frames wait, stills. */
export function threadsTargets(t: ThreadsResults): void {
  for (const r of t.video) {
    const d = r.edgeseg.default!;
    const peer = bestPeer(r);
    const want = r.camera === '640x480' ? 1.0 : 1.5;
    const share = d.maskFps / peer.maskFps;
    judge(
      `threads: new masks/s ≥ ${want.toFixed(1)} × the peer's best at ${r.camera}, ${r.fps} frames/s (default options)`,
      `${share.toFixed(2)}× (${d.maskFps.toFixed(1)} vs ${peer.maskFps.toFixed(1)}, peer at ${peer.threads?.numThreads}; other work ${noiseText(d.noise)} cores)`,
      share >= want,
    );
    if (r.fps === 60)
      judge(
        `threads: every frame shown at ${r.camera}, 60 frames/s (≥ 59.5 counted)`,
        `${d.fps.toFixed(1)} frames/s, ${d.dropped} dropped`,
        d.fps >= 59.5,
      );
    const interval = 1000 / r.fps;
    const waited = d.waitedShare ?? 0;
    judge(
      `threads: p95 latency ≤ 2 frame intervals (${(2 * interval).toFixed(0)} ms) where frames wait, ${r.camera} at ${r.fps}`,
      `${d.latency.p95.toFixed(0)} ms (frames waited ${(100 * waited).toFixed(0)}% of the time)`,
      waited === 0 ? 'NOT MEASURED' : d.latency.p95 <= 2 * interval,
    );
  }
  const def = t.stillsDefault?.numThreads;
  for (const size of STILL_SIZES) {
    const mine = t.stills.find((r) => r.size === size && r.threads === def);
    const peers = t.stills.filter((r) => r.size === size);
    if (!mine || !peers.length) continue;
    const best = peers.reduce((a, b) => (b.app.median < a.app.median ? b : a));
    const share = mine.edgeseg.median / best.app.median;
    judge(
      `threads: stills, segment() ≤ 1.2 × the LiteRT.js app path at ${size} (default threads against the app's best count)`,
      `${share.toFixed(2)}× (${mine.edgeseg.median.toFixed(1)} vs ${best.app.median.toFixed(1)} ms at ${best.threads}; segmentRaw() ${ratio(mine.raw.median, best.app.median)}×)`,
      share <= 1.2,
    );
  }
}

/** `--threads-only`: the threads section alone, on its own page server; bench/out/threads-<cores>c.{json,md}. */
export async function threadsOnly(): Promise<void> {
  await mkdir(OUT, { recursive: true });
  const server = await benchServer();
  const origin = server.resolvedUrls!.local[0]!.replace(/\/$/, '');
  const results: ThreadsResults = {
    cores: CORES,
    browserCores: CORES,
    counts: COUNTS,
    stillsDefault: null,
    alone: [],
    stills: [],
    video: [],
  };
  line(`Threads: ${CORES} core(s), counts ${COUNTS.join(', ')}; load average ${loadavg()[0]!.toFixed(2)}`);
  other = new OtherWork();
  try {
    if (STILLS) await stillsSection(origin, results);
    if (VIDEO) await videoSection(origin, results);
  } finally {
    other.stop();
    await server.close();
  }
  verdicts.length = 0;
  const report = threadsReport(results);
  threadsTargets(results);
  const md = `${report}\n\n#### Targets (default options)\n\n${table(
    ['target', 'measured', 'verdict'],
    verdicts.map((v) => [v.target, v.measured, v.outcome]),
  )}`;
  line(`\n${md}`);
  const name = `threads-${CORES}c`;
  await writeFile(
    join(OUT, `${name}.json`),
    JSON.stringify({ date: new Date().toISOString(), runs: RUNS, warmup: WARMUP, ...results, verdicts }, null, 1),
  );
  await writeFile(join(OUT, `${name}.md`), md);
  line(`\nwrote bench/out/${name}.md and ${name}.json`);
}

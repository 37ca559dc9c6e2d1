// The first-visit section: what a visitor waits for, from navigation to the first person mask, on an empty
// cache and on a second visit, over emulated links (Chromium's network emulation through CDP), for an app
// with the packed edgeseg (people model, WASM) beside the LiteRT.js app path and MediaPipe tasks-vision's
// ImageSegmenter on the same selfie .tflite. Each page is served from its own npm packages' files by a
// compressing host (compressing-host.ts), which counts the bytes each file put on the wire.
import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { copyFileSync, cpSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page, type Worker } from 'playwright-core';
import { build } from 'vite';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../test/chromium.js';
import { ensureBuilt } from '../../test/helpers/built-cli.js';
import { makeToolApp } from '../../test/packed/tool-app.js';
import type { FirstVisitOutcome, FirstMask } from '../first-visit/report.js';
import { withImageSegmenterMetadata } from '../first-visit/tflite-metadata.js';
import { ROOT } from '../paths.js';
import { ms, ratioInterval, summarize, table, type Summary } from '../stats.js';
import { startCompressingHost, type CompressingHost, type WireEntry } from './compressing-host.js';
import { buildPage, judge, verdicts } from './harness.js';
import { flag, quick, textFlag, THREADS, OUT, line } from './options.js';
import { PEOPLE_MODELS, peopleImages } from './people.js';

/** The links of the section: Chromium's emulation (throughput in bits/s, latency added to each request). */
export const LINKS = [
  { name: 'loopback (no emulation)', bits: 0, latency: 0 },
  { name: '20 Mbit/s, 40 ms', bits: 20e6, latency: 40 },
  { name: '5 Mbit/s, 150 ms', bits: 5e6, latency: 150 },
] as const;
/** The emulated links: the ones the targets are set on. */
const EMULATED = LINKS.filter((l) => l.bits > 0).map((l) => l.name);

export const RUNTIMES = ['edgeseg', 'litert', 'mediapipe'] as const;
type Runtime = (typeof RUNTIMES)[number];
const LABELS: Record<Runtime, string> = {
  edgeseg: 'edgeseg (packed, Vite build, WASM)',
  litert: 'LiteRT.js app path',
  mediapipe: 'MediaPipe ImageSegmenter (CPU)',
};

/** Page loads per case (`--first-visit-runs N`): each an empty profile, then a second visit. */
const VISITS = flag('first-visit-runs') ?? (quick ? 1 : 3);
const VISIT_TIMEOUT_MS = 120_000;

export interface Visit {
  ms: number;
  wire: WireEntry[];
}
export interface FirstVisitCase {
  runtime: Runtime;
  link: string;
  first: Summary;
  second: Summary;
  /** Each run's time to the first mask (ms), first visit and second, in the order they ran. */
  samples: { first: number[]; second: number[] };
  /** When the runtime and the model were ready (medians, ms since the navigation), first visit and second. */
  ready: { first: number; second: number };
  /** edgeseg: its first call's stages on a first visit (medians, ms). */
  stages?: Record<string, number>;
  /** edgeseg: its first call's stages on a second visit (medians, ms). */
  stagesSecond?: Record<string, number>;
  /** edgeseg: when its worker passed each step of its start (its `edgeseg:` marks; medians, ms since the navigation). */
  marks?: { first: Record<string, number>; second: Record<string, number> };
  /** The first run's answers, first visit and second. */
  wire: { first: WireEntry[]; second: WireEntry[] };
  /** Share of pixels on which this runtime's mask equals edgeseg's (first visit, first run). */
  agreement: number;
}
export interface FirstVisitResults {
  visits: number;
  threads: number;
  /** How the edgeseg app names the people model. */
  modelImport: string;
  cases: FirstVisitCase[];
}

/** A self-signed certificate for 127.0.0.1 (openssl), and its key's SPKI hash, which Chromium is told to trust. */
function certificate(dir: string): { cert: string; key: string; spki: string } {
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-days',
      '2',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  const cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
  const spki = createHash('sha256')
    .update(new X509Certificate(cert).publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64');
  return { cert, key: readFileSync(join(dir, 'key.pem'), 'utf8'), spki };
}

/** `--edgeseg-tarball FILE`: measure that packed edgeseg (another version, say) instead of packing this tree. */
function edgesegTarball(work: string): string {
  const given = textFlag('edgeseg-tarball');
  if (given !== undefined) return given;
  ensureBuilt();
  const packed = execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', work, '--loglevel=error'], { cwd: ROOT });
  return join(work, packed.toString().trim().split('\n').pop()!);
}

/**
 * The edgeseg app: the packed package (this tree, packed as the packed tests pack it) in a fresh app,
 * built by Vite with no option for edgeseg. The people model comes from the package's subpath import
 * where it has one, else as the app's own static files (public/model/).
 */
async function edgesegSite(work: string, image: string): Promise<{ dir: string; modelImport: string }> {
  const app = join(ROOT, 'bench', 'first-visit', 'edgeseg');
  const appDir = makeToolApp({
    name: 'first-visit',
    dependencies: {},
    files: { 'index.html': readFileSync(join(app, 'index.html'), 'utf8') },
    tarball: edgesegTarball(work),
    copy: { 'public/person.jpg': image },
  });
  try {
    const manifest = JSON.parse(readFileSync(join(appDir, 'node_modules', 'edgeseg', 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
    };
    const subpath = './models/people' in manifest.exports;
    const modelImport = subpath
      ? "import * as bundled from 'edgeseg/models/people';\nconst people = bundled.default ?? bundled.people;"
      : "const people = '/model/';";
    if (!subpath) cpSync(PEOPLE_MODELS[0]!.dir, join(appDir, 'public', 'model'), { recursive: true });
    writeFileSync(join(appDir, 'main.js'), readFileSync(join(app, 'main.js'), 'utf8').replace('/* MODEL_IMPORT */', modelImport));
    const dir = join(OUT, 'first-visit-edgeseg');
    await build({ root: appDir, configFile: false, logLevel: 'warn', build: { outDir: dir, emptyOutDir: true } });
    return { dir, modelImport: subpath ? "`import … from 'edgeseg/models/people'`" : 'the app’s static files (public/model/)' };
  } finally {
    await rm(appDir, { recursive: true, force: true });
  }
}

/**
 * A peer's page, built from bench/first-visit/<name>, with its runtime's folder and the selfie .tflite
 * beside it (for MediaPipe with the input metadata its ImageSegmenter requires: tflite-metadata.ts).
 */
async function peerSite(name: 'litert' | 'mediapipe', image: string): Promise<string> {
  const dir = await buildPage(`first-visit/${name}`, `first-visit-${name}`, { build: { chunkSizeWarningLimit: 1e6 } });
  const runtime = name === 'litert' ? ['@litertjs', 'core', 'wasm'] : ['@mediapipe', 'tasks-vision', 'wasm'];
  cpSync(join(ROOT, 'node_modules', ...runtime), join(dir, name), { recursive: true });
  const tflite = readFileSync(PEOPLE_MODELS[0]!.tflitePath);
  // ImageSegmenter refuses a float model without normalisation metadata, which the legacy package's file lacks.
  writeFileSync(join(dir, 'selfie_segmentation.tflite'), name === 'mediapipe' ? withImageSegmenterMetadata(tflite) : tflite);
  copyFileSync(image, join(dir, 'person.jpg'));
  return dir;
}

/**
 * One visit in a Chromium on `profile` (a persistent profile: its HTTP cache, its Cache Storage and its
 * compiled-code cache are kept for the second visit, after the browser is closed and started again, as a
 * returning visitor's are), over `link`; the page's time to its first mask and the host's answers.
 */
async function visit(host: CompressingHost, url: string, profile: string, link: (typeof LINKS)[number], spki: string) {
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    args: [...CHROMIUM_ARGS, `--ignore-certificate-errors-spki-list=${spki}`],
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    const workers: Worker[] = [];
    page.on('worker', (w) => workers.push(w));
    if (link.bits) {
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: link.latency,
        downloadThroughput: link.bits / 8,
        uploadThroughput: link.bits / 8,
      });
    }
    host.take();
    await page.goto(url, { waitUntil: 'commit' });
    await page.waitForFunction(() => 'firstMask' in window, null, { timeout: VISIT_TIMEOUT_MS, polling: 20 });
    const outcome = await page.evaluate(() => (window as unknown as { firstMask: FirstVisitOutcome }).firstMask);
    if ('error' in outcome) throw new Error(`${url}: ${outcome.error}`);
    return { outcome, marks: await workerMarks(page, workers), wire: host.take() };
  } finally {
    await context.close();
  }
}

/**
 * edgeseg's worker's `edgeseg:` User Timing marks (workers/segment-worker.ts), in ms since the page's
 * navigation. Only edgeseg's worker is asked: onnxruntime-web's thread workers sit blocked and never answer.
 */
async function workerMarks(page: Page, workers: Worker[]): Promise<Record<string, number>> {
  const origin = await page.evaluate(() => performance.timeOrigin);
  const marks: Record<string, number> = {};
  for (const worker of workers.filter((w) => w.url().includes('segment-worker'))) {
    const seen = await worker.evaluate(() => ({
      origin: performance.timeOrigin,
      marks: performance.getEntriesByType('mark').map((m) => [m.name, m.startTime] as const),
    }));
    for (const [name, at] of seen.marks) if (name.startsWith('edgeseg:')) marks[name.slice('edgeseg:'.length)] = seen.origin - origin + at;
  }
  return marks;
}

const agreement = (a: FirstMask, b: FirstMask) => {
  if (a.width !== b.width || a.height !== b.height) return 0;
  let same = 0;
  for (let i = 0; i < a.ids.length; i++) if (a.ids[i] === b.ids[i]) same++;
  return same / a.ids.length;
};

export async function firstVisitSection(): Promise<FirstVisitResults> {
  await mkdir(OUT, { recursive: true });
  const work = await mkdtemp(join(tmpdir(), 'edgeseg-first-visit-'));
  const hosts: CompressingHost[] = [];
  try {
    const image = (await peopleImages())['640x480']!;
    const tls = certificate(work);
    const edgeseg = await edgesegSite(work, image);
    const dirs: Record<Runtime, string> = {
      edgeseg: edgeseg.dir,
      litert: await peerSite('litert', image),
      mediapipe: await peerSite('mediapipe', image),
    };
    const m = PEOPLE_MODELS[0]!;
    const urls = {} as Record<Runtime, { host: CompressingHost; url: string }>;
    for (const r of RUNTIMES) {
      const host = await startCompressingHost(dirs[r], tls);
      hosts.push(host);
      urls[r] = { host, url: `${host.url}/index.html?threads=${THREADS}&height=${m.height}&width=${m.width}` };
    }
    line(
      `\nFirst visit: time to the first person mask (640×480 JPEG) on an empty profile and on a second visit, ${VISITS} run(s) per case, ${THREADS} WASM threads where the runtime takes them; the people model is named by ${edgeseg.modelImport}`,
    );
    const cases: FirstVisitCase[] = [];
    for (const link of LINKS) {
      const outcomes = Object.fromEntries(RUNTIMES.map((r) => [r, { first: [] as FirstMask[], second: [] as FirstMask[] }])) as Record<
        Runtime,
        { first: FirstMask[]; second: FirstMask[] }
      >;
      const marks = { first: [] as Record<string, number>[], second: [] as Record<string, number>[] };
      const firstRun = {} as Record<Runtime, { first: WireEntry[]; second: WireEntry[] }>;
      for (let run = 0; run < VISITS; run++) {
        // The runtimes in a turning order, so that a busy moment of the machine does not always fall on one.
        for (let k = 0; k < RUNTIMES.length; k++) {
          const r = RUNTIMES[(k + run) % RUNTIMES.length]!;
          const profile = await mkdtemp(join(work, 'profile-'));
          const first = await visit(urls[r].host, urls[r].url, profile, link, tls.spki);
          const second = await visit(urls[r].host, urls[r].url, profile, link, tls.spki);
          await rm(profile, { recursive: true, force: true });
          outcomes[r].first.push(first.outcome);
          outcomes[r].second.push(second.outcome);
          if (r === 'edgeseg') [marks.first, marks.second].forEach((list, i) => list.push([first, second][i]!.marks));
          if (run === 0) firstRun[r] = { first: first.wire, second: second.wire };
        }
      }
      const median = (values: number[]) => summarize(values).median;
      const medianStages = (visits: FirstMask[], keys: string[]) =>
        Object.fromEntries(keys.map((k) => [k, median(visits.map((o) => o.stages![k]!))]));
      const medianMarks = (list: Record<string, number>[]) =>
        Object.fromEntries(Object.keys(list[0] ?? {}).map((k) => [k, median(list.map((m) => m[k]!).filter((v) => v !== undefined))]));
      for (const r of RUNTIMES) {
        const { first, second } = outcomes[r];
        const stages = first[0]!.stages;
        const c: FirstVisitCase = {
          runtime: r,
          link: link.name,
          first: summarize(first.map((o) => o.ms)),
          second: summarize(second.map((o) => o.ms)),
          samples: { first: first.map((o) => o.ms), second: second.map((o) => o.ms) },
          ready: { first: median(first.map((o) => o.ready)), second: median(second.map((o) => o.ready)) },
          ...(stages
            ? {
                stages: medianStages(first, Object.keys(stages)),
                stagesSecond: medianStages(second, Object.keys(stages)),
              }
            : {}),
          ...(r === 'edgeseg' ? { marks: { first: medianMarks(marks.first), second: medianMarks(marks.second) } } : {}),
          wire: firstRun[r],
          agreement: agreement(first[0]!, outcomes.edgeseg.first[0]!),
        };
        cases.push(c);
        line(
          `${link.name}, ${LABELS[r]}: first visit ${ms(c.first.median)} ms (${kb(wireBytes(c.wire.first))} on the wire), second ${ms(c.second.median)} ms (${kb(wireBytes(c.wire.second))})${r === 'edgeseg' ? '' : `; mask = edgeseg's on ${(100 * c.agreement).toFixed(2)}% of pixels`}`,
        );
      }
    }
    return { visits: VISITS, threads: THREADS, modelImport: edgeseg.modelImport, cases };
  } finally {
    for (const h of hosts) await h.close();
    await rm(work, { recursive: true, force: true });
  }
}

/** edgeseg's first call, stage by stage (ms), where measured. */
const stageList = (stages: Record<string, number> | undefined) =>
  stages
    ? ['decode', 'preprocess', 'run', 'postprocess']
        .filter((k) => stages[k] !== undefined)
        .map((k) => `${k} ${ms(stages[k]!)}`)
        .join(', ')
    : '';

const wireBytes = (wire: WireEntry[]) => wire.reduce((n, e) => n + e.bytes, 0);
const kb = (bytes: number) => (bytes >= 1e6 ? `${(bytes / 1e6).toFixed(2)} MB` : `${(bytes / 1e3).toFixed(1)} kB`);
/** A file's name without Vite's content hash, for the tables. */
const fileName = (path: string) => path.replace(/^\//, '');

export function firstVisitReport(res: FirstVisitResults): string {
  const byCase = (r: Runtime, link: string) => res.cases.find((c) => c.runtime === r && c.link === link)!;
  const out = [
    `\n### First visit: navigation → first person mask (640×480 JPEG), ms, median (min–max) of ${res.visits} run(s); a second visit on the same profile after a browser restart\n`,
  ];
  out.push(
    table(
      ['link', 'runtime', 'first visit', 'on the wire', 'second visit', 'on the wire (requests)', 'first ÷ edgeseg', 'mask = edgeseg’s'],
      res.cases.map((c) => {
        const e = byCase('edgeseg', c.link);
        return [
          c.link,
          LABELS[c.runtime],
          `${ms(c.first.median)} (${ms(c.first.min)}–${ms(c.first.max)})`,
          kb(wireBytes(c.wire.first)),
          `${ms(c.second.median)} (${ms(c.second.min)}–${ms(c.second.max)})`,
          `${kb(wireBytes(c.wire.second))} (${c.wire.second.length})`,
          c.runtime === 'edgeseg' ? '—' : (c.first.median / e.first.median).toFixed(2),
          c.runtime === 'edgeseg' ? '—' : `${(100 * c.agreement).toFixed(2)}%`,
        ];
      }),
    ),
  );
  out.push(
    `\nRatios, edgeseg ÷ peer: the medians' ratio, and (with 3 runs or more) in brackets the 90% interval of that ratio, bootstrapped from the runs (one whose interval holds a target cannot say which side of it the truth is on):\n`,
  );
  const withInterval = (e: number[], peer: number[]) => {
    const { ratio, interval } = ratioOf(e, peer);
    return `${ratio.toFixed(2)}${interval ? ` (${interval})` : ''}`;
  };
  out.push(
    table(
      ['link', 'first visit ÷ MediaPipe', 'first visit ÷ LiteRT.js', 'second visit ÷ MediaPipe', 'second visit ÷ LiteRT.js'],
      LINKS.map(({ name }) => {
        const [e, l, mp] = RUNTIMES.map((r) => byCase(r, name));
        return [
          name,
          withInterval(e!.samples.first, mp!.samples.first),
          withInterval(e!.samples.first, l!.samples.first),
          withInterval(e!.samples.second, mp!.samples.second),
          withInterval(e!.samples.second, l!.samples.second),
        ];
      }),
    ),
  );
  out.push(
    '\nWhere the time goes (medians, ms since the navigation): when the runtime and the model were ready (edgeseg: `createSegmenter` resolved; LiteRT.js: `loadLiteRt` + `loadAndCompile`; MediaPipe: `ImageSegmenter.createFromOptions`), then the first call on the image (edgeseg: its stages, first visit and second):\n',
  );
  out.push(
    table(
      ['link', 'runtime', 'first visit: ready', 'first call', 'second visit: ready', 'first call', 'edgeseg’s first call', 'second visit'],
      res.cases.map((c) => [
        c.link,
        LABELS[c.runtime],
        ms(c.ready.first),
        ms(c.first.median - c.ready.first),
        ms(c.ready.second),
        ms(c.second.median - c.ready.second),
        stageList(c.stages),
        stageList(c.stagesSecond),
      ]),
    ),
  );
  const slow = LINKS.at(-1)!.name;
  out.push(
    `\nBytes on the wire per file, first visit (body bytes as the host sent them: brotli 5 for HTML, JavaScript, JSON, text and Wasm; the model files as they are), in the order the browser asked for them, and when it asked (ms after the page, at ${slow}):\n`,
  );
  out.push(
    table(
      ['runtime', 'file', 'size', 'on the wire', 'encoding', 'asked at'],
      RUNTIMES.flatMap((r) => {
        const wire = byCase(r, slow).wire.first;
        return [
          ...wire.map((e) => [
            LABELS[r],
            fileName(e.path),
            kb(e.size),
            kb(e.bytes),
            e.status === 200 ? e.encoding : String(e.status),
            ms(e.at),
          ]),
          [LABELS[r], '**total**', kb(wire.reduce((n, e) => n + (e.status === 200 ? e.size : 0), 0)), `**${kb(wireBytes(wire))}**`, '', ''],
        ];
      }),
    ),
  );
  out.push(
    `\nSecond visit, request by request (the first run's, at ${slow}): when the host got each request and when it had written its answer, ms after the page's own request (the host's clock; the browser sees each answer the link's latency later):\n`,
  );
  out.push(
    table(
      ['runtime', 'file', 'answer', 'asked at', 'answered at'],
      RUNTIMES.flatMap((r) =>
        byCase(r, slow).wire.second.map((e) => [
          LABELS[r],
          fileName(e.path),
          String(e.status),
          ms(e.at),
          e.done === undefined ? '' : ms(e.done),
        ]),
      ),
    ),
  );
  const seen = byCase('edgeseg', slow).marks?.second ?? {};
  const steps = ['worker-started', 'load', 'ort-imported', 'model-read', 'ort-wasm-ready', 'session-created'].filter((k) => k in seen);
  if (steps.length) {
    out.push(
      "\nedgeseg's worker, step by step (its `edgeseg:` User Timing marks; medians, ms since the navigation): the worker's script ran (`worker-started`), the page's load request came (`load`), onnxruntime-web's module was imported (`ort-imported`), the model's files were read (`model-read`, from Cache Storage on a second visit), onnxruntime-web's WASM was fetched, compiled, instantiated and set up with its threads (`ort-wasm-ready`), the model's session was made (`session-created`):\n",
    );
    out.push(
      table(
        ['link', 'visit', ...steps],
        LINKS.flatMap(({ name }) => {
          const m = byCase('edgeseg', name).marks;
          return m
            ? (['first', 'second'] as const).map((v) => [name, v, ...steps.map((k) => (m[v][k] === undefined ? '' : ms(m[v][k])))])
            : [];
        }),
      ),
    );
  }
  out.push(
    '\nSecond visit: every file is revalidated (the host sends ETag and `Cache-Control: no-cache`, as Cloudflare Pages and Netlify do by default) and answered 304; edgeseg reads its model from Cache Storage without asking. The loopback row has no emulation: its time is the CPU part of a visit (parse, compile, initialise, run).',
  );
  return out.join('\n');
}

/** edgeseg's median ÷ a peer's, and (3 runs or more) the 90% interval of that ratio, bootstrapped from the runs. */
function ratioOf(e: number[], peer: number[]): { ratio: number; interval: string } {
  const ratio = summarize(e).median / summarize(peer).median;
  if (e.length < 3) return { ratio, interval: '' };
  const { lo, hi } = ratioInterval(e, peer);
  return { ratio, interval: `${lo.toFixed(2)}–${hi.toFixed(2)}` };
}

export function firstVisitTargets(res: FirstVisitResults): void {
  const at = (r: Runtime, link: string) => res.cases.find((c) => c.runtime === r && c.link === link)!;
  for (const link of EMULATED) {
    const [e, l, mp] = RUNTIMES.map((r) => at(r, link)) as [FirstVisitCase, FirstVisitCase, FirstVisitCase];
    // The medians' ratio judges; the interval says how far the runs let it be trusted.
    const measured = (visit: 'first' | 'second', peer: FirstVisitCase) => {
      const { ratio, interval } = ratioOf(e.samples[visit], peer.samples[visit]);
      const text = `${ratio.toFixed(2)}×${interval ? ` (90% interval ${interval})` : ''} (${ms(e[visit].median)} vs ${ms(peer[visit].median)} ms)`;
      return { ratio, text };
    };
    const first = (peer: FirstVisitCase, limit: number, name: string) => {
      const { ratio, text } = measured('first', peer);
      judge(`first visit: first mask ≤ ${limit.toFixed(1)} × ${name}'s at ${link}`, text, ratio <= limit);
    };
    first(mp, 1.0, 'MediaPipe');
    first(l, 1.2, 'LiteRT.js');
    for (const [peer, name] of [
      [mp, 'MediaPipe'],
      [l, 'LiteRT.js'],
    ] as const) {
      const { ratio, text } = measured('second', peer);
      judge(`second visit: first mask ≤ 1.0 × ${name}'s at ${link}`, text, ratio <= 1.0);
    }
  }
}

/** The targets judged (added to the bench's verdicts), as a table of their own. */
export function firstVisitTargetTable(res: FirstVisitResults): string {
  const first = verdicts.length;
  firstVisitTargets(res);
  return `### First-visit targets\n\n${table(
    ['target', 'measured', 'verdict'],
    verdicts.slice(first).map((v) => [v.target, v.measured, v.outcome]),
  )}`;
}

/** `--first-visit-only`: this section alone; bench/out/first-visit.{json,md}. */
export async function firstVisitOnly(): Promise<void> {
  const res = await firstVisitSection();
  verdicts.length = 0;
  const md = `${firstVisitReport(res)}\n\n${firstVisitTargetTable(res)}`;
  line(`\n${md}`);
  await writeFile(join(OUT, 'first-visit.json'), JSON.stringify({ date: new Date().toISOString(), ...res, verdicts }, null, 1));
  await writeFile(join(OUT, 'first-visit.md'), md);
}

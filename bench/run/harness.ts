// What every section of the bench shares: the verdicts, the bench page and its server, page builds, mask comparison.
import { copyFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { type Browser, type Page } from 'playwright-core';
import { build, createServer, type ViteDevServer } from 'vite';
import { type PlatformServer } from '../../server/index.js';
import { startStaticServer, type StaticServer } from '../../test/fixtures/static-server.js';
import { imagePath, MODELS, ROOT } from '../paths.js';
import { decodeMaskPng } from '../../src/payload/index.js';
import { base64ToBytes } from '../../src/payload/base64.js';
import { ms, summarize, table, type Summary } from '../stats.js';
import { OUT, line } from './options.js';

/** NOT MEASURED: the figure exists but does not answer the target (a software GPU), or there is none. */
export type Outcome = 'PASS' | 'FALLS SHORT' | 'NOT MEASURED';
export interface Verdict {
  target: string;
  measured: string;
  outcome: Outcome;
}
export const verdicts: Verdict[] = [];
export const judge = (target: string, measured: string, pass: boolean | 'NOT MEASURED') => {
  const outcome: Outcome = pass === 'NOT MEASURED' ? pass : pass ? 'PASS' : 'FALLS SHORT';
  verdicts.push({ target, measured, outcome });
  line(`  ${outcome.padEnd(12)}  ${target}: ${measured}`);
};

export const call = <T>(p: Page, fn: string, config: Record<string, unknown>) =>
  p.evaluate(([f, c]) => (window as unknown as { bench: Record<string, (c: unknown) => Promise<unknown>> }).bench[f]!(c), [
    fn,
    config,
  ] as const) as Promise<T>;
export const url = (file: string) => `/@fs${file}`;
/** The hosted route's arguments for bench.ts's `hosted` (version 2 of project shapes is the model under test). */
export const hostedConfig = (p: PlatformServer) => ({
  baseUrl: p.baseUrl,
  inferenceUrl: p.inferenceUrl,
  apiKey: p.apiKey,
  project: 'shapes',
  version: 2,
});
export type ModelKey = keyof typeof MODELS;
export type Environment = { userAgent: string; cores: number; isolated: boolean };

/** The bench page's dev server (edgeseg from source), cross-origin isolated. */
export async function benchServer(): Promise<ViteDevServer> {
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
export async function benchPage(browser: Browser, origin: string): Promise<{ page: Page; environment: Environment }> {
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

export type Stages = Record<string, Summary>;
export type Row = {
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
export type Streams = Record<string, { fps: number; frames: number }>;

/** edgeseg segment() with its stage breakdown, then segmentRaw(), on the page's bench functions; and the last mask. */
export async function measureEdgeseg(
  page: Page,
  base: Record<string, unknown>,
): Promise<{ edgeseg: Summary; raw: Summary; stages: Stages; mask: string }> {
  const e = await call<{ times: number[]; stages: Record<string, number[]>; mask: string }>(page, 'edgeseg', { ...base, raw: false });
  const r = await call<{ times: number[] }>(page, 'edgeseg', { ...base, raw: true });
  const stages = Object.fromEntries(Object.entries(e.stages).map(([k, v]) => [k, summarize(v)]));
  return { edgeseg: summarize(e.times), raw: summarize(r.times), stages, mask: e.mask };
}

/** Share of pixels on which two payload masks agree (0 when their sizes differ). */
export function equalShare(a: string, b: string): number {
  const x = decodeMaskPng(base64ToBytes(a));
  const y = decodeMaskPng(base64ToBytes(b));
  if (x.width !== y.width || x.height !== y.height) return 0;
  let same = 0;
  for (let i = 0; i < x.classIds.length; i++) if (x.classIds[i] === y.classIds[i]) same++;
  return same / x.classIds.length;
}

export const pct = (share: number) => `${(100 * share).toFixed(4)}%`;

/** A production build of bench/<page> (edgeseg from source) into bench/out/<out>; returns the folder. */
export async function buildPage(
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
export async function builtBenchPage(): Promise<StaticServer> {
  // The peer is not measured on this page.
  const dir = await buildPage('web', 'web-build', {
    define: { __TRANSFORMERS_WASM__: JSON.stringify({ mjs: '', wasm: '' }), __LITERT_WASM__: '""' },
    build: { chunkSizeWarningLimit: 1e6 },
  });
  await copyFile(imagePath('640x480'), join(dir, 'scene-640x480.jpg'));
  return startStaticServer(dir, { isolate: true });
}

/** Gzipped bytes of the JavaScript a page runs before the worker: the entry chunk and its static imports. */
export async function mainThreadSize(): Promise<number> {
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

export const STAGES = ['decode', 'preprocess', 'run', 'postprocess', 'encode', 'total'];
/** edgeseg's time per stage (median), and its whole call over the model alone's. */
export const stageTable = (rows: Array<{ model: string; image: string; stages: Stages; edgeseg: Summary; ortAlone: Summary }>) =>
  table(
    ['model', 'image', ...STAGES, 'end to end ÷ model alone'],
    rows.map((r) => [
      r.model,
      r.image,
      ...STAGES.map((s) => (r.stages[s] ? ms(r.stages[s].median) : '—')),
      (r.edgeseg.median / r.ortAlone.median).toFixed(2),
    ]),
  );

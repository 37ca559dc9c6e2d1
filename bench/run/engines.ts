// The engines section: edgeseg segment() on the bundled model in Chromium, Firefox ESR and WebKitGTK.
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ENGINES, openEngine, type EngineName, type EnginePage } from '../../test/engines/index.js';
import { SUPPORT } from '../../test/engines/support.js';
import { ROOT } from '../paths.js';
import { spread, summarize, table, type Summary } from '../stats.js';
import { RUNS, WARMUP, THREADS, OUT, line } from './options.js';
import { url, benchServer, equalShare, pct } from './harness.js';

export type EngineRow = {
  image: string;
  times: Partial<Record<EngineName, Summary>>;
  equalToChromium: Partial<Record<EngineName, number>>;
};
export interface EngineResults {
  versions: Partial<Record<EngineName, string>>;
  threads: Partial<Record<EngineName, number>>;
  rows: EngineRow[];
}

/** Sample images of the bundled model at two sizes (JPEG), as the engines section feeds them. */
export function engineImages(): Array<{ label: string; path: string }> {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'models', 'shapes', 'samples', 'manifest.json'), 'utf8')) as {
    images: Array<{ file: string; width: number; height: number }>;
  };
  return ['320x240', '640x480'].map((size) => {
    const image = manifest.images.find((i) => `${i.width}x${i.height}` === size)!;
    return { label: size, path: join(ROOT, 'models', 'shapes', 'samples', image.file) };
  });
}

/** edgeseg segment() on the bundled model (WASM, THREADS threads asked) in each engine, on the same page. */
export async function engineSection(origin: string): Promise<EngineResults> {
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
export const enginePageReady = (page: EnginePage) =>
  page.evaluate(async () => {
    for (let i = 0; i < 600 && (window as unknown as { benchReady?: boolean }).benchReady !== true; i++)
      await new Promise((r) => setTimeout(r, 100));
    return (window as unknown as { benchReady?: boolean }).benchReady === true;
  });

export function engineReport(e: EngineResults): string {
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
export async function enginesOnly(): Promise<void> {
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

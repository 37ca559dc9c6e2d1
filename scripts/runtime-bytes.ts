// What a visitor's browser downloads and compiles of edgeseg's runtime, per backend and engine: each
// file's bytes as shipped (dist/browser/), as a host that compresses sends them (gzip level 6, the usual
// default of servers and CDNs; brotli 11, what hosts that precompress serve), and the time each engine
// takes to compile the WASM binary it runs (a fresh browser for each reading: engines cache compiled
// modules), plus inflating the compressed asyncify binary where that is the build.
//   npx tsx scripts/runtime-bytes.ts [--runs 3] [--engines chromium,firefox,webkit]
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { ORT_FILE_NAMES, type OrtBuild } from '../src/runtime/ort-file-names.js';
import { openEngine, type EngineName } from '../test/engines/index.js';
import { startStaticServer } from '../test/fixtures/static-server.js';
import { ROOT } from '../test/helpers/paths.js';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '3' }, engines: { type: 'string', default: 'chromium,firefox,webkit' } },
});
const runs = Number(values.runs);
const engines = values.engines.split(',') as EngineName[];
const BUILD = join(ROOT, 'dist', 'browser');

/** A file's bytes: as shipped, and on the wire from a compressing host (a .gz is sent as it is). */
function wire(name: string): { raw: number; gzip: number; brotli: number } {
  const bytes = readFileSync(join(BUILD, name));
  if (name.endsWith('.gz')) return { raw: bytes.length, gzip: bytes.length, brotli: bytes.length };
  return {
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 6 }).length,
    brotli: brotliCompressSync(bytes, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
    }).length,
  };
}

const mb = (n: number) => (n / 1e6).toFixed(2);
const row = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;

console.log('## Bytes per file (MB, 10^6 bytes)\n');
console.log(row(['file', 'as shipped', 'gzip -6', 'brotli 11']));
console.log(row(['---', '---:', '---:', '---:']));
const files = ['edgeseg.js', 'edgeseg-wasm.js', 'segment-worker.js', ...Object.values(ORT_FILE_NAMES).flatMap((f) => [f.module, f.binary])];
const sizes = Object.fromEntries(files.map((name) => [name, wire(name)]));
for (const name of files) console.log(row([`\`${name}\``, mb(sizes[name]!.raw), mb(sizes[name]!.gzip), mb(sizes[name]!.brotli)]));
const biggest = Math.max(...files.map((name) => statSync(join(BUILD, name)).size));
console.log(`\nlargest file: ${mb(biggest)} MB (${(biggest / 2 ** 20).toFixed(2)} MiB)\n`);
// What an app's build carries of the runtime (the entry, the worker, onnxruntime-web's files it names).
const carried = (names: string[]) => mb(names.reduce((total, name) => total + sizes[name]!.raw, 0));
const ortOf = (...builds: OrtBuild[]) => builds.flatMap((b) => [ORT_FILE_NAMES[b].module, ORT_FILE_NAMES[b].binary]);
console.log(
  `a build on \`edgeseg\` carries ${carried(['edgeseg.js', 'segment-worker.js', ...ortOf('wasm', 'webgpu-jspi', 'webgpu-asyncify')])} MB;`,
);
console.log(`on \`edgeseg/wasm\`, ${carried(['edgeseg-wasm.js', 'segment-worker.js', ...ortOf('wasm')])} MB\n`);

console.log('## Per visitor: the files fetched for one backend (MB)\n');
console.log(row(['backend, build', 'as shipped', 'gzip -6', 'brotli 11']));
console.log(row(['---', '---:', '---:', '---:']));
for (const build of Object.keys(ORT_FILE_NAMES) as OrtBuild[]) {
  const names = ['edgeseg.js', 'segment-worker.js', ORT_FILE_NAMES[build].module, ORT_FILE_NAMES[build].binary];
  const sum = (key: 'raw' | 'gzip' | 'brotli') => names.reduce((total, name) => total + sizes[name]![key], 0);
  console.log(row([build, mb(sum('raw')), mb(sum('gzip')), mb(sum('brotli'))]));
}

// Compile (and inflate) times, in a page of each engine, on a cross-origin isolated loopback host.
const site = mkdtempSync(join(tmpdir(), 'edgeseg-runtime-bytes-'));
cpSync(BUILD, site, { recursive: true });
writeFileSync(join(site, 'index.html'), '<!doctype html><title>runtime bytes</title>');
const server = await startStaticServer(site, { isolate: true });
const measure = async (engine: EngineName, build: OrtBuild): Promise<{ inflate: number; compile: number }> => {
  const page = await openEngine(engine);
  try {
    await page.goto(`${server.url}/`);
    const { binary, gzip } = ORT_FILE_NAMES[build];
    return await page.evaluate(
      async (url: string, compressed: boolean) => {
        let bytes = await (await fetch(url)).arrayBuffer();
        const t0 = performance.now();
        if (compressed) bytes = await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).arrayBuffer();
        const t1 = performance.now();
        await WebAssembly.compile(bytes);
        return { inflate: t1 - t0, compile: performance.now() - t1 };
      },
      `${server.url}/${binary}`,
      gzip === true,
    );
  } finally {
    await page.close();
  }
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`\n## Compile time of each binary (ms, median of ${runs}, a fresh browser each)\n`);
console.log(row(['engine', 'build', 'inflate', 'compile']));
console.log(row(['---', '---', '---:', '---:']));
try {
  for (const engine of engines)
    for (const build of Object.keys(ORT_FILE_NAMES) as OrtBuild[]) {
      const readings: { inflate: number; compile: number }[] = [];
      for (let i = 0; i < runs; i++) readings.push(await measure(engine, build));
      const inflate = ORT_FILE_NAMES[build].gzip ? median(readings.map((r) => r.inflate)).toFixed(0) : '–';
      console.log(row([engine, build, inflate, median(readings.map((r) => r.compile)).toFixed(0)]));
    }
} finally {
  await server.close();
  rmSync(site, { recursive: true, force: true });
}

// After tsc: the packaged browser build in dist/browser/ — the entry as one self-contained ES module (and
// edgeseg/wasm's entry, the same API naming WASM's runtime alone), the worker as another (no bare import,
// nothing that assumes a page), and onnxruntime-web's files beside them, so that bundlers copy them as they
// are and a page without a bundler finds them by relative URL. The asyncify WASM (WebGPU where the engine
// has no JSPI) ships gzip-compressed, so that no file is over 25 MiB (Cloudflare's limit).
import { copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { buildModelModules, packagedVideoModel } from './build-models.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'browser');

/** Swaps a source-tree module for its packaged twin (`x.ts` → `x.packaged.ts`, or `x.<twin>.ts`). */
const packagedTwins = (names, twin = 'packaged') => ({
  name: 'edgeseg-packaged-twins',
  setup(b) {
    const filter = new RegExp(`/(${names.join('|')})\\.js$`);
    b.onResolve({ filter }, (args) => ({ path: join(args.resolveDir, args.path.replace(/\.js$/, `.${twin}.ts`)) }));
  },
});

const common = {
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  // Maps carry their sources, so that a user's bundler finds nothing missing.
  sourcemap: true,
  sourcesContent: true,
  legalComments: 'inline',
  logLevel: 'warning',
};

rmSync(out, { recursive: true, force: true });
await build({
  ...common,
  entryPoints: { edgeseg: join(root, 'src', 'index.ts') },
  outdir: out,
  // faults: the page's test faults, which the package does not ship (see src/runtime/faults.ts).
  plugins: [packagedTwins(['runtime-files', 'faults']), packagedVideoModel],
});
// edgeseg/wasm: the same entry, whose runtime-files names no WebGPU file, so that bundlers copy none.
await build({
  ...common,
  entryPoints: { 'edgeseg-wasm': join(root, 'src', 'index.ts') },
  outdir: out,
  plugins: [packagedTwins(['runtime-files'], 'wasm'), packagedTwins(['faults']), packagedVideoModel],
});
await build({
  ...common,
  entryPoints: { 'segment-worker': join(root, 'workers', 'segment-worker.ts') },
  outdir: out,
  plugins: [packagedTwins(['ort-import', 'faults'])],
});

for (const file of ['edgeseg.js', 'edgeseg-wasm.js', 'segment-worker.js']) {
  const code = readFileSync(join(out, file), 'utf8');
  const bare = code.match(/(?:^|[;\s])(?:import|export)\s[^'"]*from\s*['"](?![./])[^'"]+['"]|import\(\s*['"](?![./])[^'"]+['"]\s*\)/m);
  if (bare) throw new Error(`build-browser: ${file} keeps a bare import: ${bare[0]}`);
}

// onnxruntime-web's self-contained modules (their pthreads start from them) and the binaries they run.
// Their source-map comments go: the maps are not shipped.
const ortDist = dirname(createRequire(import.meta.url).resolve('onnxruntime-web/wasm'));
const { ORT_FILE_NAMES } = await import('../dist/src/runtime/ort-file-names.js');
mkdirSync(out, { recursive: true });
for (const { module, binary, gzip, bytes } of Object.values(ORT_FILE_NAMES)) {
  const source = join(ortDist, gzip ? binary.replace(/\.gz$/, '') : binary);
  let code = withGlobalExports(readFileSync(join(ortDist, module), 'utf8').replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '\n'), module);
  // The module names its binary beside itself, by a name edgeseg ships compressed (and hands over as
  // bytes): it names the compressed file instead, which a bundler that re-bundles the module (Parcel)
  // then finds, as the one edgeseg's entry names.
  if (gzip) code = renameBinary(code, basename(source), binary);
  writeFileSync(join(out, module), code);
  // The runtime checks a binary's size (RUNTIME_FILE_INVALID): the sizes it knows must be this version's.
  if (statSync(source).size !== bytes)
    throw new Error(`build-browser: ${source} is ${statSync(source).size} bytes; src/runtime/ort-file-names.ts says ${bytes}`);
  // gzip's header carries no name and no time here: the same input gives the same bytes on every build.
  if (gzip) writeFileSync(join(out, binary), gzipSync(readFileSync(source), { level: constants.Z_BEST_COMPRESSION }));
  else copyFileSync(source, join(out, binary));
}

/** `code` with each `new URL("<name>", import.meta.url)` naming `shipped` instead. */
function renameBinary(code, name, shipped) {
  const literal = `new URL(${JSON.stringify(name)},import.meta.url)`;
  if (!code.includes(literal)) throw new Error(`build-browser: the module no longer names ${name} as ${literal}`);
  return code.replaceAll(literal, `new URL(${JSON.stringify(shipped)},import.meta.url)`);
}

/**
 * The module also hands its exports to `globalThis[Symbol.for('edgeseg.onnxruntime-web')]` (the key of
 * workers/ort-from-url.ts): a bundler that re-bundles it as an app entry (Parcel) drops its exports, and
 * the worker then finds them there.
 */
function withGlobalExports(code, file) {
  const last = code.match(/export\s*\{([^}]*)\};?\s*$/);
  if (!last) throw new Error(`build-browser: ${file} does not end with an export list`);
  const pairs = last[1].split(',').map((entry) => {
    const [local, exported = local] = entry.trim().split(/\s+as\s+/);
    return `${JSON.stringify(exported)}:${local}`;
  });
  return `${code.slice(0, last.index)}globalThis[Symbol.for("edgeseg.onnxruntime-web")]={${pairs.join(',')}};\n${code.slice(last.index)}`;
}

await buildModelModules(out);

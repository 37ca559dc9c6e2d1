// After tsc: the packaged browser build in dist/browser/ — the entry as one self-contained ES module, the
// worker as another (no bare import, nothing that assumes a page), and onnxruntime-web's files beside
// them, so that bundlers copy them as they are and a page without a bundler finds them by relative URL.
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'browser');

/** Swaps a source-tree module for its packaged twin (`x.ts` → `x.packaged.ts`). */
const packagedTwins = (names) => ({
  name: 'edgeseg-packaged-twins',
  setup(b) {
    const filter = new RegExp(`/(${names.join('|')})\\.js$`);
    b.onResolve({ filter }, (args) => ({ path: join(args.resolveDir, args.path.replace(/\.js$/, '.packaged.ts')) }));
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
  plugins: [packagedTwins(['runtime-files'])],
});
await build({
  ...common,
  entryPoints: { 'segment-worker': join(root, 'workers', 'segment-worker.ts') },
  outdir: out,
  plugins: [packagedTwins(['ort-import', 'faults'])],
});

for (const file of ['edgeseg.js', 'segment-worker.js']) {
  const code = readFileSync(join(out, file), 'utf8');
  const bare = code.match(/(?:^|[;\s])(?:import|export)\s[^'"]*from\s*['"](?![./])[^'"]+['"]|import\(\s*['"](?![./])[^'"]+['"]\s*\)/m);
  if (bare) throw new Error(`build-browser: ${file} keeps a bare import: ${bare[0]}`);
}

// onnxruntime-web's self-contained modules (their pthreads start from them) and the binaries they run.
// Their source-map comments go: the maps are not shipped.
const ortDist = dirname(createRequire(import.meta.url).resolve('onnxruntime-web/wasm'));
const { ORT_FILE_NAMES } = await import('../dist/src/runtime/ort-file-names.js');
const ortFiles = Object.values(ORT_FILE_NAMES).flatMap(({ module, binary }) => [module, binary]);
mkdirSync(out, { recursive: true });
for (const file of ortFiles) {
  if (file.endsWith('.mjs'))
    writeFileSync(
      join(out, file),
      withGlobalExports(readFileSync(join(ortDist, file), 'utf8').replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '\n'), file),
    );
  else copyFileSync(join(ortDist, file), join(out, file));
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

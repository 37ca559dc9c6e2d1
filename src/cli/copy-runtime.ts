// `edgeseg copy-runtime <dir>`: copies the browser runtime (edgeseg's worker script and onnxruntime-web's
// files, as dist/browser/ ships them) into an app's static folder, for bundlers that copy no files
// (esbuild, Rollup without an asset plugin); the page then passes `runtimeUrl` with the folder's URL.
// Needs nothing native: the command line runs it before loading onnxruntime-node and sharp.
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ORT_FILE_NAMES } from '../runtime/ort-file-names.js';
import { WORKER_FILE_NAME } from '../runtime/runtime-location.js';
import { UsageError } from './usage-error.js';

/** dist/browser/ beside this module's dist/src/node/. */
const BROWSER_BUILD = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'browser');

/**
 * The files that make the browser runtime: the worker (and its source map) and every backend's
 * onnxruntime-web files, or WASM's alone (`wasmOnly`: what a page on `edgeseg/wasm` fetches).
 */
export function runtimeFileNames({ wasmOnly = false } = {}): string[] {
  const builds = wasmOnly ? [ORT_FILE_NAMES.wasm] : Object.values(ORT_FILE_NAMES);
  return [WORKER_FILE_NAME, `${WORKER_FILE_NAME}.map`, ...builds.flatMap(({ module, binary }) => [module, binary])];
}

/** Copies the runtime into `target` (made if missing) and returns the names copied. */
export function copyRuntime(target: string, from = BROWSER_BUILD, { wasmOnly = false } = {}): string[] {
  const names = runtimeFileNames({ wasmOnly });
  const absent = names.filter((name) => !existsSync(join(from, name)));
  if (absent.length > 0)
    throw new Error(`edgeseg's browser build at ${from} lacks ${absent.join(', ')} (run \`npm run build:lib\` in a checkout)`);
  mkdirSync(target, { recursive: true });
  for (const name of names) copyFileSync(join(from, name), join(target, name));
  return names;
}

export const COPY_RUNTIME_HELP = `  edgeseg copy-runtime <dir> [--wasm]
      Copies the browser runtime (the worker and onnxruntime-web's files, ~38 MB) into <dir>, an app's
      static folder, for bundlers that copy no files (esbuild, Rollup). Then pass the URL that folder is
      served at: createSegmenter({ model, runtimeUrl: '/edgeseg/' }). Run it again after updating edgeseg.
      --wasm: WASM's runtime alone (~15 MB), for an app on 'edgeseg/wasm' that never runs WebGPU.`;

/** The command: `args` are what follows `copy-runtime`. */
export function copyRuntimeCommand(args: string[], out: (s: string) => void): void {
  const wasmOnly = args.includes('--wasm');
  const [target, ...extra] = args.filter((arg) => arg !== '--wasm');
  if (target === '--help' || target === '-h') {
    out(`${COPY_RUNTIME_HELP}\n`);
    return;
  }
  if (target === undefined || target.startsWith('-') || extra.length > 0)
    throw new UsageError('copy-runtime takes one folder: edgeseg copy-runtime <dir> [--wasm] (for example public/edgeseg)');
  const names = copyRuntime(target, BROWSER_BUILD, { wasmOnly });
  out(
    `copied ${names.length} files into ${target}\n` +
      `pass the URL that folder is served at to createSegmenter, e.g. { runtimeUrl: '/edgeseg/' } for public/edgeseg\n`,
  );
}

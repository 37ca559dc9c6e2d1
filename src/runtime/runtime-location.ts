// Where the browser runtime's files (the worker script, onnxruntime-web's module and binary) are looked
// for, in order: the caller's options, the URLs the bundler gave the package, and — where a tool's
// dependency optimizer moved the package into its own folder (Vite 5–7's `node_modules/.vite/deps/`,
// Angular's `.angular/cache/…/vite/deps/`) without its files — the package's folder as that tool's dev
// server serves it. Pure: URLs in, URLs out.
import type { LocalBackendName, OrtFiles } from './protocol.js';
import { ortFilesIn } from './ort-file-names.js';

/** The worker script's name in the browser build (dist/browser/). */
export const WORKER_FILE_NAME = 'segment-worker.js';

/** Where one backend's runtime is looked for, and what to tell the user when its files are not there. */
export interface RuntimeLocation {
  /** The worker script; undefined where the bundler that built the page starts the worker (the source tree). */
  worker: string | undefined;
  /** onnxruntime-web's files; undefined where the worker's bundler resolved onnxruntime-web. */
  ort: OrtFiles | undefined;
  /** The fix, for a RUNTIME_FILE_MISSING message: an instruction that fits how the URLs were found. */
  fix: string;
}

export interface LocationOptions {
  /** A folder holding everything `npx edgeseg copy-runtime` copies: the worker and onnxruntime-web's files. */
  runtimeUrl?: string | URL | undefined;
  workerUrl?: string | URL | undefined;
  wasmPaths?: string | URL | undefined;
}

/** The bundled files' URLs, or why they cannot be known (an IIFE bundle has no `import.meta.url`). */
export type BundledFiles = { worker: string; ort: OrtFiles } | Error | undefined;

const COPY_STEP = "run `npx edgeseg copy-runtime <your static folder>/edgeseg` and pass `runtimeUrl: '/edgeseg/'` to createSegmenter";

export const FIX = {
  /** The bundler put the package's files somewhere (or left them out) and the page does not find them. */
  bundled: `the bundler did not put edgeseg's runtime files beside the bundle (esbuild and Rollup copy no files): ${COPY_STEP}`,
  /** A dependency optimizer's folder, with the package's folder tried too. */
  optimizer:
    "a dev server pre-bundled edgeseg into its dependency folder without its runtime files, and did not serve the package's folder either: exclude edgeseg from pre-bundling (Vite: `optimizeDeps.exclude: ['edgeseg']`), or " +
    COPY_STEP,
  runtimeUrl: (folder: string) =>
    `copy edgeseg's runtime there: \`npx edgeseg copy-runtime <the folder that the server serves at ${folder}>\``,
  option: (name: string) =>
    `serve edgeseg's browser files (node_modules/edgeseg/dist/browser/, or \`npx edgeseg copy-runtime <folder>\`) there, or point \`${name}\` at them`,
} as const;

/**
 * The folders where a dev server serves edgeseg's browser build, for a file URL that a dependency
 * optimizer resolved into its own folder (a `deps` folder, as Vite's `node_modules/.vite/deps/`); empty
 * for any other URL. The app's base path is kept: the package sits in the `node_modules/` under it.
 */
export function servedPackageFolders(fileUrl: string): string[] {
  let url: URL;
  try {
    url = new URL(fileUrl);
  } catch {
    return [];
  }
  const parts = url.pathname.split('/');
  const folder = parts[parts.length - 2] ?? '';
  if (!/^deps(?:_[\w-]+)?$/.test(folder)) return [];
  const modules = url.pathname.indexOf('/node_modules/');
  // Angular's dev server keeps its optimizer's folder in the project's `.angular/cache/`, served under
  // `/@fs/<project path>/`, and serves the project's node_modules there too (not at `/node_modules/`).
  const angular = url.pathname.indexOf('/.angular/cache/');
  const base = modules >= 0 ? url.pathname.slice(0, modules + 1) : angular >= 0 ? url.pathname.slice(0, angular + 1) : '/';
  return [`${url.origin}${base}node_modules/edgeseg/dist/browser/`];
}

/** A folder URL (relative ones against `base`), ending in `/`. */
export function folderUrl(folder: string | URL, base: string | undefined): string {
  const url = new URL(folder, base);
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url.href;
}

/**
 * The places to try, in order, for `backend`'s runtime. Throws the bundled files' error (no
 * `import.meta.url`) only when the options do not say where both the worker and onnxruntime-web are.
 */
export function runtimeLocations(
  bundled: BundledFiles,
  options: LocationOptions,
  backend: LocalBackendName,
  base: string | undefined,
): RuntimeLocation[] {
  const worker = options.workerUrl === undefined ? undefined : new URL(options.workerUrl, base).href;
  const ort = options.wasmPaths === undefined ? undefined : ortFilesIn(folderUrl(options.wasmPaths, base), backend);
  const own = options.workerUrl === undefined ? 'wasmPaths' : 'workerUrl';
  if (options.runtimeUrl !== undefined) {
    const folder = folderUrl(options.runtimeUrl, base);
    return [{ worker: worker ?? folder + WORKER_FILE_NAME, ort: ort ?? ortFilesIn(folder, backend), fix: FIX.runtimeUrl(folder) }];
  }
  if (worker !== undefined && ort !== undefined) return [{ worker, ort, fix: FIX.option(own) }];
  if (bundled instanceof Error) throw bundled;
  // The source tree: the page's bundler builds and starts the worker, and resolves onnxruntime-web.
  if (bundled === undefined) return [{ worker, ort, fix: FIX.option(own) }];
  const optimizerFolders = servedPackageFolders(bundled.worker);
  const atBundled: RuntimeLocation = {
    worker: worker ?? bundled.worker,
    ort: ort ?? bundled.ort,
    fix: worker !== undefined || ort !== undefined ? FIX.option(own) : optimizerFolders.length > 0 ? FIX.optimizer : FIX.bundled,
  };
  // The optimizer's folder never holds the files: the package's folder is tried first, so that a page
  // that works makes no failed request (and the dev server logs no missing file).
  const served = optimizerFolders.map((folder) => ({
    worker: worker ?? folder + WORKER_FILE_NAME,
    ort: ort ?? ortFilesIn(folder, backend),
    fix: atBundled.fix,
  }));
  return [...served, atBundled];
}

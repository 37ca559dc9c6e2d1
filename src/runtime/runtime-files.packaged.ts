// Where the worker script and onnxruntime-web come from, in the packaged browser build (dist/browser/):
// files shipped beside the bundle. Each URL is a literal `new URL('./file', import.meta.url)` on its own,
// never inside `new Worker(…)`: Vite (build, and dev since its optimizer rewrites these in pre-bundled
// dependencies) and webpack then copy each file as it is and hand back its URL, instead of re-bundling
// the prebuilt worker; without a bundler the files are found beside this module.
import { BackendError } from '../errors/index.js';
import { ortBuildFor, ortFiles } from './ort-file-names.js';
import type { LocalBackendName } from './protocol.js';
import type { BundledFiles } from './runtime-location.js';

/** The backends whose runtime this build carries (edgeseg/wasm's build: WASM alone; runtime-files.wasm.ts). */
export const BUNDLED_BACKENDS: readonly LocalBackendName[] = ['webgpu', 'wasm'];

export function startBundledWorker(): Worker {
  throw new Error('the packaged build starts its worker by URL');
}

/** The files beside this module, as the bundler resolved them; an error where a bundle has no `import.meta.url`. */
export function bundledFiles(backend: LocalBackendName): BundledFiles {
  if (backend === 'wasm') return bundledWasmFiles();
  const worker = bundledWorker(backend);
  if (worker instanceof Error) return worker;
  // Both WebGPU builds are named, so that bundlers copy both; a page fetches one.
  const jspi = ortFiles(
    'webgpu-jspi',
    new URL('./ort.jspi.bundle.min.mjs', import.meta.url).href,
    new URL('./ort-wasm-simd-threaded.jspi.wasm', import.meta.url).href,
  );
  const asyncify = ortFiles(
    'webgpu-asyncify',
    new URL('./ort.webgpu.bundle.min.mjs', import.meta.url).href,
    new URL('./ort-wasm-simd-threaded.asyncify.wasm.gz', import.meta.url).href,
  );
  return { worker, ort: ortBuildFor('webgpu') === 'webgpu-jspi' ? jspi : asyncify };
}

/** The WASM backend's files beside this module (all that edgeseg/wasm's build names). */
export function bundledWasmFiles(): BundledFiles {
  const worker = bundledWorker('wasm');
  if (worker instanceof Error) return worker;
  return {
    worker,
    ort: ortFiles(
      'wasm',
      new URL('./ort.wasm.bundle.min.mjs', import.meta.url).href,
      new URL('./ort-wasm-simd-threaded.wasm', import.meta.url).href,
    ),
  };
}

function bundledWorker(backend: LocalBackendName): string | BackendError {
  // esbuild's IIFE and CommonJS bundles replace `import.meta` with an empty object.
  if (typeof import.meta.url !== 'string')
    return new BackendError(
      'RUNTIME_URL_UNKNOWN',
      "edgeseg cannot tell where its runtime files are: this bundle has no `import.meta.url` (esbuild's default IIFE format empties `import.meta`); run `npx edgeseg copy-runtime <your static folder>/edgeseg` and pass `runtimeUrl: '/edgeseg/'` to createSegmenter, or bundle as an ES module (`--format=esm`)",
      { backend },
    );
  return new URL('./segment-worker.js', import.meta.url).href;
}

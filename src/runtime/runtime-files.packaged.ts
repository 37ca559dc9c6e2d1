// Where the worker script and onnxruntime-web come from, in the packaged browser build (dist/browser/):
// files shipped beside the bundle. Each URL is a literal `new URL('./file', import.meta.url)` on its own,
// never inside `new Worker(…)`: Vite (build, and dev since its optimizer rewrites these in pre-bundled
// dependencies) and webpack then copy each file as it is and hand back its URL, instead of re-bundling
// the prebuilt worker; without a bundler the files are found beside this module.
import { BackendError } from '../errors/index.js';
import type { LocalBackendName } from './protocol.js';
import type { BundledFiles } from './runtime-location.js';

export function startBundledWorker(): Worker {
  throw new Error('the packaged build starts its worker by URL');
}

/** The files beside this module, as the bundler resolved them; an error where a bundle has no `import.meta.url`. */
export function bundledFiles(backend: LocalBackendName): BundledFiles {
  // esbuild's IIFE and CommonJS bundles replace `import.meta` with an empty object.
  if (typeof import.meta.url !== 'string')
    return new BackendError(
      'RUNTIME_URL_UNKNOWN',
      "edgeseg cannot tell where its runtime files are: this bundle has no `import.meta.url` (esbuild's default IIFE format empties `import.meta`); run `npx edgeseg copy-runtime <your static folder>/edgeseg` and pass `runtimeUrl: '/edgeseg/'` to createSegmenter, or bundle as an ES module (`--format=esm`)",
      { backend },
    );
  const worker = new URL('./segment-worker.js', import.meta.url).href;
  return backend === 'wasm'
    ? {
        worker,
        ort: {
          module: new URL('./ort.wasm.bundle.min.mjs', import.meta.url).href,
          binary: new URL('./ort-wasm-simd-threaded.wasm', import.meta.url).href,
        },
      }
    : {
        worker,
        ort: {
          module: new URL('./ort.webgpu.bundle.min.mjs', import.meta.url).href,
          binary: new URL('./ort-wasm-simd-threaded.asyncify.wasm', import.meta.url).href,
        },
      };
}

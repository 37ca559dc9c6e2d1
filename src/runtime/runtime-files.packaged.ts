// Where the worker script and onnxruntime-web come from, in the packaged browser build (dist/browser/):
// files shipped beside the bundle. Each URL is a literal `new URL('./file', import.meta.url)` on its own,
// never inside `new Worker(…)`: Vite (build, and dev since its optimizer rewrites these in pre-bundled
// dependencies) and webpack then copy each file as it is and hand back its URL, instead of re-bundling
// the prebuilt worker; without a bundler the files are found beside this module.
import type { LocalBackendName, OrtFiles } from './protocol.js';

export function startBundledWorker(): Worker {
  return new Worker(bundledWorkerUrl(), { type: 'module' });
}

export function bundledWorkerUrl(): string {
  return new URL('./segment-worker.js', import.meta.url).href;
}

export function bundledOrtFiles(backend: LocalBackendName): OrtFiles {
  return backend === 'wasm'
    ? {
        module: new URL('./ort.wasm.bundle.min.mjs', import.meta.url).href,
        binary: new URL('./ort-wasm-simd-threaded.wasm', import.meta.url).href,
      }
    : {
        module: new URL('./ort.webgpu.bundle.min.mjs', import.meta.url).href,
        binary: new URL('./ort-wasm-simd-threaded.asyncify.wasm', import.meta.url).href,
      };
}

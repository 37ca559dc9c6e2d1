// Where the worker script and onnxruntime-web come from, in edgeseg/wasm's build (dist/browser/edgeseg-wasm.js):
// as runtime-files.packaged.ts, but naming the WASM backend's files alone, so that a bundler copies none
// of WebGPU's (16.8 MB and 6.6 MB of binaries) into an app that never runs it.
import { BackendError } from '../errors/index.js';
import type { LocalBackendName } from './protocol.js';
import type { BundledFiles } from './runtime-location.js';
import { bundledWasmFiles } from './runtime-files.packaged.js';

export { startBundledWorker } from './runtime-files.packaged.js';

export const BUNDLED_BACKENDS: readonly LocalBackendName[] = ['wasm'];

export function bundledFiles(backend: LocalBackendName): BundledFiles {
  if (backend === 'wasm') return bundledWasmFiles();
  return new BackendError(
    'BACKEND_UNAVAILABLE',
    "this build (edgeseg/wasm) leaves onnxruntime-web's WebGPU runtime out: for WebGPU, use the `edgeseg` entry, or pass `runtimeUrl` with a folder that `npx edgeseg copy-runtime` filled",
    { backend },
  );
}

// The names of onnxruntime-web's files that the packaged build ships, per backend: the self-contained
// ES module (its pthreads start from it) and the WASM binary it runs. `wasmPaths` is a folder holding them.
import type { LocalBackendName, OrtFiles } from './protocol.js';

export const ORT_FILE_NAMES: Readonly<Record<LocalBackendName, OrtFiles>> = {
  wasm: { module: 'ort.wasm.bundle.min.mjs', binary: 'ort-wasm-simd-threaded.wasm' },
  webgpu: { module: 'ort.webgpu.bundle.min.mjs', binary: 'ort-wasm-simd-threaded.asyncify.wasm' },
};

/** The files of `backend` in the folder `base` (a URL; relative ones resolve against the page). */
export function ortFilesIn(base: string | URL, backend: LocalBackendName): OrtFiles {
  const folder = new URL(base, globalThis.location?.href);
  if (!folder.pathname.endsWith('/')) folder.pathname += '/';
  const names = ORT_FILE_NAMES[backend];
  return { module: new URL(names.module, folder).href, binary: new URL(names.binary, folder).href };
}

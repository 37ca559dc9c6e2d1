// The names of onnxruntime-web's files that the packaged build ships, per build of onnxruntime-web: the
// self-contained ES module (its pthreads start from it) and the WASM binary it runs. `wasmPaths` is a
// folder holding them. WebGPU has two builds: JSPI (16.8 MB) where the engine has JavaScript Promise
// Integration (Chromium, Firefox), else asyncify (26.8 MB), shipped gzip-compressed (6.6 MB) so that no
// file is over the 25 MiB that Cloudflare Pages and Workers take; the worker inflates it.
import type { LocalBackendName, OrtFiles } from './protocol.js';

/** onnxruntime-web's builds that edgeseg ships: `wasm` for the WASM backend, the two others for WebGPU. */
export type OrtBuild = 'wasm' | 'webgpu-jspi' | 'webgpu-asyncify';

export interface OrtBuildFiles {
  module: string;
  binary: string;
  /** The binary is gzip-compressed (`.wasm.gz`): the worker fetches and inflates it. */
  gzip?: true;
  /** The WASM binary's size in bytes (inflated): a file of another size was cut short or replaced. */
  bytes: number;
}

/** scripts/build-browser.mjs checks these sizes against onnxruntime-web's files as it copies them. */
export const ORT_FILE_NAMES: Readonly<Record<OrtBuild, OrtBuildFiles>> = {
  wasm: { module: 'ort.wasm.bundle.min.mjs', binary: 'ort-wasm-simd-threaded.wasm', bytes: 14_239_897 },
  'webgpu-jspi': { module: 'ort.jspi.bundle.min.mjs', binary: 'ort-wasm-simd-threaded.jspi.wasm', bytes: 16_758_545 },
  'webgpu-asyncify': {
    module: 'ort.webgpu.bundle.min.mjs',
    binary: 'ort-wasm-simd-threaded.asyncify.wasm.gz',
    gzip: true,
    bytes: 26_781_914,
  },
};

/** Whether this engine has JavaScript Promise Integration (WebAssembly.Suspending): Chromium 137+ and Firefox (ESR 153 has it); not Safari 26. */
export function engineHasJspi(): boolean {
  return typeof WebAssembly === 'object' && 'Suspending' in WebAssembly;
}

/** The build that `backend` runs on this engine. */
export function ortBuildFor(backend: LocalBackendName): OrtBuild {
  if (backend === 'wasm') return 'wasm';
  return engineHasJspi() ? 'webgpu-jspi' : 'webgpu-asyncify';
}

/** What the worker is told of a build whose files are at `module` and `binary`. */
export function ortFiles(build: OrtBuild, module: string, binary: string): OrtFiles {
  const { gzip, bytes } = ORT_FILE_NAMES[build];
  return { module, binary, bytes, ...(gzip ? { gzip } : {}) };
}

/** The files of `backend`'s build for this engine in the folder `base` (a URL; relative ones resolve against the page). */
export function ortFilesIn(base: string | URL, backend: LocalBackendName): OrtFiles {
  const folder = new URL(base, globalThis.location?.href);
  if (!folder.pathname.endsWith('/')) folder.pathname += '/';
  const build = ortBuildFor(backend);
  const names = ORT_FILE_NAMES[build];
  return ortFiles(build, new URL(names.module, folder).href, new URL(names.binary, folder).href);
}

// Where the worker script and onnxruntime-web come from, in the source tree: the bundler that builds the
// page (Vite for the demo and the browser tests) builds the worker and resolves onnxruntime-web itself.
// The packaged browser build swaps this module for runtime-files.packaged.ts (scripts/build-browser.mjs).
import type { LocalBackendName } from './protocol.js';
import type { BundledFiles } from './runtime-location.js';

/** The backends whose runtime this build carries. */
export const BUNDLED_BACKENDS: readonly LocalBackendName[] = ['webgpu', 'wasm'];

/** Starts the worker that ships with this build. */
export function startBundledWorker(): Worker {
  return new Worker(new URL('../../workers/segment-worker.ts', import.meta.url), { type: 'module' });
}

/** The runtime files' URLs; unknown here (the bundler places the worker and resolves onnxruntime-web). */
export function bundledFiles(_backend: LocalBackendName): BundledFiles {
  return undefined;
}

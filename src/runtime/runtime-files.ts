// Where the worker script and onnxruntime-web come from, in the source tree: the bundler that builds the
// page (Vite for the demo and the browser tests) builds the worker and resolves onnxruntime-web itself.
// The packaged browser build swaps this module for runtime-files.packaged.ts (scripts/build-browser.mjs).
import type { LocalBackendName, OrtFiles } from './protocol.js';

/** Starts the worker that ships with this build. */
export function startBundledWorker(): Worker {
  return new Worker(new URL('../../workers/segment-worker.ts', import.meta.url), { type: 'module' });
}

/** The worker's URL, to say what is wrong when it does not start; unknown here (the bundler places it). */
export function bundledWorkerUrl(): string | undefined {
  return undefined;
}

/** onnxruntime-web's files for `backend`; undefined: the worker imports onnxruntime-web through its bundler. */
export function bundledOrtFiles(_backend: LocalBackendName): OrtFiles | undefined {
  return undefined;
}

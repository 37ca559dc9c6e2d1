// Imports onnxruntime-web's self-contained ES module from a URL and points it at its WASM binary.
import { BackendError } from '../src/errors/index.js';
import { checkRuntimeFile, moduleProblem, readRuntimeBinary } from '../src/runtime/runtime-file-check.js';
import type { LocalBackendName, OrtFiles } from '../src/runtime/protocol.js';

/** Where edgeseg's copy of onnxruntime-web's module also puts its exports (scripts/build-browser.mjs). */
const ORT_GLOBAL = Symbol.for('edgeseg.onnxruntime-web');

type OrtEnv = { env?: { wasm?: { wasmPaths?: unknown; wasmBinary?: unknown } | null } };

const imported = new Map<string, Promise<unknown>>();

/**
 * onnxruntime-web from `files`, set to run their binary. Once per worker and files: the WebGPU backend
 * starts it as a load begins, so that a compressed binary downloads while the model package does.
 */
export function importOrtFrom(files: OrtFiles, backend: LocalBackendName): Promise<unknown> {
  const key = `${files.module} ${files.binary}`;
  let started = imported.get(key);
  if (!started) imported.set(key, (started = importAndPoint(files, backend)));
  return started;
}

async function importAndPoint(files: OrtFiles, backend: LocalBackendName): Promise<unknown> {
  // A compressed binary is fetched (and inflated) while the module loads.
  const binary = files.gzip ? readRuntimeBinary(files, backend) : null;
  binary?.catch(() => undefined); // awaited below; a failed import found first must not leave it unhandled
  let ort: OrtEnv;
  try {
    // The comments keep bundlers from resolving a URL that only exists at run time.
    ort = (await import(/* @vite-ignore */ /* webpackIgnore: true */ files.module)) as OrtEnv;
  } catch (cause) {
    throw await moduleProblem(files.module, backend, files.fix, cause);
  }
  // A bundler that re-bundled the module as an app entry (Parcel) serves a file that loads and exports
  // nothing; edgeseg's copy of the module also hands its exports to this global (scripts/build-browser.mjs).
  if (!hasOrtEnv(ort)) ort = (globalThis as Record<symbol, unknown>)[ORT_GLOBAL] as OrtEnv;
  if (!hasOrtEnv(ort))
    throw new BackendError(
      'RUNTIME_FILE_MISSING',
      `onnxruntime-web's ES module at ${files.module} loaded but exports no onnxruntime-web (a bundler rewrote it?); ${files.fix ?? "serve edgeseg's browser files there, or point `wasmPaths` at them"}`,
      { backend },
    );
  // The module would look for its binary beside itself; a bundler may have renamed the binary. A
  // compressed one is handed over as bytes (onnxruntime-web then compiles them without streaming).
  if (binary) ort.env.wasm.wasmBinary = await binary;
  else ort.env.wasm.wasmPaths = { wasm: files.binary };
  performance.mark('edgeseg:ort-imported');
  return ort;
}

/** Whether `ort` is the module's exports found through the global (the bundler re-bundled it): its threads cannot start. */
export function rebundled(ort: unknown): boolean {
  return ort === (globalThis as Record<symbol, unknown>)[ORT_GLOBAL];
}

function hasOrtEnv(ort: OrtEnv | undefined): ort is OrtEnv & { env: { wasm: object } } {
  return typeof ort?.env?.wasm === 'object' && ort.env.wasm !== null;
}

/**
 * Why onnxruntime-web could not start, when its binary is the reason (null otherwise, or with no URLs;
 * a compressed binary was checked as it was read).
 */
export async function binaryProblem(files: OrtFiles | undefined, backend: LocalBackendName): Promise<Error | null> {
  if (!files || files.gzip) return null;
  return checkRuntimeFile(files.binary, "onnxruntime-web's WASM binary", backend, { fix: files.fix, bytes: files.bytes });
}

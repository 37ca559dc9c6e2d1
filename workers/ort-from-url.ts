// Imports onnxruntime-web's self-contained ES module from a URL and points it at its WASM binary.
import { checkRuntimeFile } from '../src/runtime/runtime-file-check.js';
import type { LocalBackendName, OrtFiles } from '../src/runtime/protocol.js';

type OrtEnv = { env: { wasm: { wasmPaths?: unknown } } };

export async function importOrtFrom(files: OrtFiles, backend: LocalBackendName): Promise<unknown> {
  let ort: OrtEnv;
  try {
    // The comments keep bundlers from resolving a URL that only exists at run time.
    ort = (await import(/* @vite-ignore */ /* webpackIgnore: true */ files.module)) as OrtEnv;
  } catch (cause) {
    throw (await checkRuntimeFile(files.module, "onnxruntime-web's ES module", backend)) ?? cause;
  }
  // The module would look for its binary beside itself; a bundler may have renamed the binary.
  ort.env.wasm.wasmPaths = { wasm: files.binary };
  return ort;
}

/** Why onnxruntime-web could not start, when its binary is the reason (null otherwise, or with no URLs). */
export async function binaryProblem(files: OrtFiles | undefined, backend: LocalBackendName): Promise<Error | null> {
  return files ? checkRuntimeFile(files.binary, "onnxruntime-web's WASM binary", backend) : null;
}

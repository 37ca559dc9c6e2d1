// How the worker gets onnxruntime-web: from the URLs the page gave (the packaged build ships the files
// beside the worker), else through the bundler that built the worker (the source tree: the demo, tests).
// The packaged worker build swaps this module for ort-import.packaged.ts, which has no bare import.
import { importOrtFrom } from './ort-from-url.js';
import type { LocalBackendName, OrtFiles } from '../src/runtime/protocol.js';

export function importOrt(backend: LocalBackendName, files: OrtFiles | undefined): Promise<unknown> {
  if (files) return importOrtFrom(files, backend);
  return backend === 'wasm' ? import('onnxruntime-web/wasm') : import('onnxruntime-web/webgpu');
}

// How the worker gets onnxruntime-web: from the URLs the page gave (the packaged build ships the files
// beside the worker), else through the bundler that built the worker (the source tree: the demo, tests).
// The packaged worker build swaps this module for ort-import.packaged.ts, which has no bare import.
import { ortBuildFor } from '../src/runtime/ort-file-names.js';
import { importOrtFrom } from './ort-from-url.js';
import type { LocalBackendName, OrtFiles } from '../src/runtime/protocol.js';

export function importOrt(backend: LocalBackendName, files: OrtFiles | undefined): Promise<unknown> {
  if (files) return importOrtFrom(files, backend);
  // WebGPU on the build the packaged one picks for this engine (ort-file-names.ts).
  const build = ortBuildFor(backend);
  return build === 'wasm'
    ? import('onnxruntime-web/wasm')
    : build === 'webgpu-jspi'
      ? import('onnxruntime-web/jspi')
      : import('onnxruntime-web/webgpu');
}

// How the packaged worker gets onnxruntime-web: always from the URLs the page gives (see ort-import.ts).
import { BackendError } from '../src/errors/index.js';
import { importOrtFrom } from './ort-from-url.js';
import type { LocalBackendName, OrtFiles } from '../src/runtime/protocol.js';

export function importOrt(backend: LocalBackendName, files: OrtFiles | undefined): Promise<unknown> {
  if (!files)
    return Promise.reject(
      new BackendError('RUNTIME_FILE_MISSING', "this worker needs the URLs of onnxruntime-web's files (an older page script?)", {
        backend,
      }),
    );
  return importOrtFrom(files, backend);
}

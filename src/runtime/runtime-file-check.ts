// Says what is wrong with a browser-runtime file that failed to load (the worker script, onnxruntime-web's
// module or WASM binary): static hosts answer a path they lack with 404, or with index.html. Asked only
// after a failure, so a working start pays nothing for it.
import { BackendError, type BackendName } from '../errors/index.js';
import { isHtmlPage } from '../decode/html-page.js';

export type RuntimeFileKind = "edgeseg's worker script" | "onnxruntime-web's ES module" | "onnxruntime-web's WASM binary";

const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d];

/**
 * A `RUNTIME_FILE_MISSING` error when `url` answers an error status or an HTML page (or, for a binary, not
 * WASM); null when it looks right. `fix` ends the message: what to do, for how the URL was found.
 */
export async function checkRuntimeFile(
  url: string,
  kind: RuntimeFileKind,
  backend: BackendName,
  { fix, signal }: { fix?: string | undefined; signal?: AbortSignal } = {},
): Promise<BackendError | null> {
  const option = kind === "edgeseg's worker script" ? 'workerUrl' : 'wasmPaths';
  const todo = fix ?? `serve edgeseg's browser files there, or point \`${option}\` at them`;
  const missing = (what: string, cause?: unknown) =>
    new BackendError('RUNTIME_FILE_MISSING', `${kind} at ${url} ${what}; ${todo}`, {
      backend,
      ...(cause === undefined ? {} : { cause }),
    });
  let response: Response;
  try {
    response = await fetch(url, { ...(signal ? { signal } : {}) });
  } catch (cause) {
    return missing('could not be fetched', cause);
  }
  try {
    if (!response.ok) return missing(`answered ${response.status}`);
    const type = response.headers.get('content-type') ?? '';
    const head = await firstBytes(response, 64);
    if (type.includes('text/html') || isHtmlPage(head)) {
      return missing('answered an HTML page (often a single-page-app fallback for a path the host lacks)');
    }
    if (kind === "onnxruntime-web's WASM binary" && !WASM_MAGIC.every((b, i) => head[i] === b))
      return missing('is not a WebAssembly binary');
    return null;
  } finally {
    void response.body?.cancel().catch(() => undefined);
  }
}

async function firstBytes(response: Response, count: number): Promise<Uint8Array> {
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array(0);
  const out = new Uint8Array(count);
  let filled = 0;
  while (filled < count) {
    const { done, value } = await reader.read();
    if (done) break;
    const take = Math.min(value.length, count - filled);
    out.set(value.subarray(0, take), filled);
    filled += take;
  }
  reader.releaseLock();
  return out.subarray(0, filled);
}

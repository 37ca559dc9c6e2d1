// Says what is wrong with a browser-runtime file (the worker script, onnxruntime-web's module or WASM
// binary): static hosts answer a path they lack with 404, or with index.html; a host or a build step may
// cut a file short, or compress it without saying so. The check of a file onnxruntime-web fetched itself
// is made only after a failure, so a working start pays nothing for it; the gzip-compressed binary, which
// the worker fetches and inflates itself, is checked as it arrives.
import { BackendError, type BackendName } from '../errors/index.js';
import { isHtmlPage } from '../decode/html-page.js';
import type { OrtFiles } from './protocol.js';

export type RuntimeFileKind = "edgeseg's worker script" | "onnxruntime-web's ES module" | "onnxruntime-web's WASM binary";

const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d];
const GZIP_MAGIC = [0x1f, 0x8b];

const startsWith = (bytes: Uint8Array, magic: readonly number[]) => magic.every((b, i) => bytes[i] === b);

/** The fix for a file that is there but not as shipped, whatever the bundler. */
const AS_SHIPPED =
  'serve it byte for byte as edgeseg ships it (node_modules/edgeseg/dist/browser/, or `npx edgeseg copy-runtime <folder>`): a host or build step that compresses, cuts or rewrites files must leave it alone';

interface CheckOptions {
  /** What to do when the file is not there, for how the URL was found. */
  fix?: string | undefined;
  signal?: AbortSignal;
  /** A binary's expected size in bytes (after any decoding). */
  bytes?: number | undefined;
}

function errorsFor(url: string, kind: RuntimeFileKind, backend: BackendName, fix: string | undefined) {
  const option = kind === "edgeseg's worker script" ? 'workerUrl' : 'wasmPaths';
  const todo = fix ?? `serve edgeseg's browser files there, or point \`${option}\` at them`;
  const error = (code: 'RUNTIME_FILE_MISSING' | 'RUNTIME_FILE_INVALID', what: string, then: string, cause?: unknown) =>
    new BackendError(code, `${kind} at ${url} ${what}; ${then}`, { backend, ...(cause === undefined ? {} : { cause }) });
  return {
    missing: (what: string, cause?: unknown) => error('RUNTIME_FILE_MISSING', what, todo, cause),
    invalid: (what: string, cause?: unknown) => error('RUNTIME_FILE_INVALID', what, AS_SHIPPED, cause),
    // A fetch that did not get an answer says nothing about where the files are: not the bundler's fix.
    unreachable: (cause: unknown) => error('RUNTIME_FILE_MISSING', `could not be fetched (${OFFLINE_WHY()})`, UNREACHABLE_FIX, cause),
  };
}

/** Why a fetch got no answer, as far as the page can tell. */
const OFFLINE_WHY = () =>
  globalThis.navigator?.onLine === false
    ? 'the browser is offline'
    : 'no answer: the network is down, the host unreachable, or the answer refused for CORS';
const UNREACHABLE_FIX =
  'try again once the host answers; an app that must start offline keeps these files in a service worker\'s cache (edgeseg\'s docs/apps.md, "Offline")';

const HTML_PAGE = 'answered an HTML page (often a single-page-app fallback for a path the host lacks)';

/**
 * What is wrong with a WASM binary as the page received it (decoded, where the host sent a
 * `Content-Encoding`), given its first bytes and its size; null when it looks like the file shipped.
 */
function binaryDefect(head: Uint8Array, size: number, expected: number | undefined): { missing: string } | { invalid: string } | null {
  if (startsWith(head, GZIP_MAGIC))
    return { invalid: 'is gzip-compressed but was sent without `Content-Encoding: gzip`, so the browser did not inflate it' };
  if (!startsWith(head, WASM_MAGIC)) return { missing: 'is not a WebAssembly binary' };
  if (expected !== undefined && size !== expected)
    return { invalid: `is ${size} bytes, not the ${expected} bytes of the file edgeseg ships (cut short, or another version's file)` };
  return null;
}

/**
 * A `RUNTIME_FILE_MISSING` error when `url` answers an error status or an HTML page (or, for a binary, not
 * WASM); `RUNTIME_FILE_INVALID` when a binary is there but not as shipped (another size, or compressed
 * without its encoding); null when it looks right. `fix` ends a missing file's message: what to do, for
 * how the URL was found.
 */
export async function checkRuntimeFile(
  url: string,
  kind: RuntimeFileKind,
  backend: BackendName,
  { fix, signal, bytes }: CheckOptions = {},
): Promise<BackendError | null> {
  const { missing, invalid, unreachable } = errorsFor(url, kind, backend, fix);
  let response: Response;
  try {
    response = await fetch(url, { ...(signal ? { signal } : {}) });
  } catch (cause) {
    return unreachable(cause);
  }
  try {
    if (!response.ok) return missing(`answered ${response.status}`);
    const type = response.headers.get('content-type') ?? '';
    const binary = kind === "onnxruntime-web's WASM binary";
    // A binary is read to its end (its size is checked); the other files, their first bytes.
    const { head, size } = await readBody(response, 64, binary ? Infinity : 64);
    if (type.includes('text/html') || isHtmlPage(head)) return missing(HTML_PAGE);
    if (!binary) return null;
    const defect = binaryDefect(head, size, bytes);
    if (!defect) return null;
    return 'missing' in defect ? missing(defect.missing) : invalid(defect.invalid);
  } finally {
    void response.body?.cancel().catch(() => undefined);
  }
}

/**
 * Why onnxruntime-web's module at `url` failed to import (`cause`): missing (an error status, an HTML
 * page), or there but not a module that loads (cut short, or rewritten).
 */
export async function moduleProblem(url: string, backend: BackendName, fix: string | undefined, cause: unknown): Promise<BackendError> {
  const kind = "onnxruntime-web's ES module";
  const missing = await checkRuntimeFile(url, kind, backend, { fix });
  if (missing) return missing;
  const why = (cause as Error)?.message ?? String(cause);
  return errorsFor(url, kind, backend, fix).invalid(`did not load as an ES module (${why}): cut short, or rewritten?`, cause);
}

/**
 * The WASM binary of `files`, read by the worker itself where edgeseg ships it gzip-compressed: inflated
 * when its bytes are gzip (a host that sent it with `Content-Encoding: gzip` has had the browser inflate
 * it already), and checked (WASM, and the size shipped). Errors say which file and what to do; a file
 * cut short is an error here, not a hang or a CompileError later.
 */
export async function readRuntimeBinary(files: OrtFiles, backend: BackendName, signal?: AbortSignal): Promise<Uint8Array> {
  const url = files.binary;
  const { missing, invalid, unreachable } = errorsFor(url, "onnxruntime-web's WASM binary", backend, files.fix);
  let response: Response;
  let bytes: Uint8Array;
  try {
    response = await fetch(url, { ...(signal ? { signal } : {}) });
  } catch (cause) {
    throw unreachable(cause);
  }
  if (!response.ok) {
    void response.body?.cancel().catch(() => undefined);
    throw missing(`answered ${response.status}`);
  }
  try {
    bytes = new Uint8Array(await response.arrayBuffer());
  } catch (cause) {
    throw invalid('broke off while it was downloading', cause);
  }
  if ((response.headers.get('content-type') ?? '').includes('text/html') || isHtmlPage(bytes.subarray(0, 64))) throw missing(HTML_PAGE);
  if (startsWith(bytes, GZIP_MAGIC)) {
    try {
      bytes = await gunzip(bytes);
    } catch (cause) {
      throw invalid('is not a whole gzip file (cut short?)', cause);
    }
  }
  const defect = binaryDefect(bytes.subarray(0, 64), bytes.length, files.bytes);
  if (defect) throw 'missing' in defect ? missing(defect.missing) : invalid(defect.invalid);
  return bytes;
}

async function gunzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The first `headBytes` of the body, and its size read up to `limit` bytes (then the rest is left). */
async function readBody(response: Response, headBytes: number, limit: number): Promise<{ head: Uint8Array; size: number }> {
  const reader = response.body?.getReader();
  const head = new Uint8Array(headBytes);
  if (!reader) return { head: head.subarray(0, 0), size: 0 };
  let size = 0;
  while (size < limit) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size < headBytes) head.set(value.subarray(0, headBytes - size), size);
    size += value.length;
  }
  reader.releaseLock();
  return { head: head.subarray(0, Math.min(size, headBytes)), size };
}

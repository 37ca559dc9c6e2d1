// Downloads a model package from a base URL, with byte progress, AbortSignal and an optional cache.
// Runs in browsers, workers and Node: global fetch only.
import { EdgesegAbortError, ModelPackageError, throwIfAborted } from '../errors/index.js';
import type { PackageCache } from './package-cache.js';
import type { PackageFiles } from './types.js';
import { isHtmlPage } from '../decode/html-page.js';

/** How far one file of a model package has come, as `onProgress` is told it. */
export interface DownloadProgress {
  /** The file being downloaded (weights.onnx, environment.json, …). */
  file: string;
  /** Bytes received so far. */
  loaded: number;
  /** From Content-Length; null when the server does not say. */
  total: number | null;
  /** True when the file came from the cache. */
  cached: boolean;
}

export interface FetchPackageOptions {
  fetch?: typeof fetch;
  signal?: AbortSignal;
  onProgress?: (progress: DownloadProgress) => void;
  cache?: PackageCache | null;
}

/**
 * The files of the package at `baseUrl` (a folder URL; a trailing slash is added). Asks for the current
 * layout's inference_config.json first, then the legacy environment.json and its optional model_type.json.
 */
export async function fetchPackageFiles(baseUrl: string, options: FetchPackageOptions = {}): Promise<PackageFiles> {
  const given = new URL(baseUrl, absoluteBase());
  if (/\.(onnx|tflite|ort)$/i.test(given.pathname)) {
    throw new ModelPackageError(
      'MODEL_FILE_MISSING',
      `${redactQuery(given.toString())} is a model file, and a model URL names a package folder: weights.onnx beside its inference_config.json and class_names.txt (\`npx edgeseg package <model> --classes background,…\` writes them; serve the folder)`,
    );
  }
  const base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`, absoluteBase()).toString();
  // Why each optional file counts as absent, so that a package missing a needed one says what the host did.
  const absent = new Map<string, Absence>();
  const get = (name: string, required: boolean) =>
    fetchFile(new URL(name, base).toString(), name, required, { ...options, onAbsent: (why) => absent.set(name, why) });
  // Which files the package has, remembered in the cache: offline, probing for an absent file would fail.
  const manifestUrl = new URL(MANIFEST, base).toString();
  const known = options.cache ? await options.cache.get(manifestUrl) : null;
  if (known) {
    const names = JSON.parse(new TextDecoder().decode(known)) as string[];
    const read = await Promise.all(names.map((name) => get(name, true)));
    return Object.fromEntries(names.map((name, i) => [name, read[i]!]));
  }
  // Every layout has weights.onnx: its download (the long one) runs while the small files are probed.
  const weights = get('weights.onnx', true);
  weights.catch(() => undefined); // awaited below; a failure found first must not leave it unhandled
  const files: PackageFiles = {};
  // The legacy layout's files (its configuration, and model_type.json, which only legacy exports carry)
  // are asked for only where the current configuration is absent: a current package's page then makes no
  // request that answers 404 (which browsers print as an error).
  const configuration = get('inference_config.json', false).then(async (config) => {
    if (config) return { config, env: null, type: null };
    const [env, type] = await Promise.all([get('environment.json', false), get('model_type.json', false)]);
    return { config, env, type };
  });
  const [{ config, env, type }, names] = await Promise.all([configuration, get('class_names.txt', false)]);
  if (config) files['inference_config.json'] = config;
  else if (env) files['environment.json'] = env;
  else
    throw new ModelPackageError(
      'MODEL_FILE_MISSING',
      `no inference_config.json or environment.json under ${redactQuery(base)}${hostSaid(absent, 'inference_config.json', 'environment.json')}; a package folder holds weights.onnx, class_names.txt and one of them (\`npx edgeseg package model.onnx --classes background,…\` writes a package for a model)`,
    );
  if (names) files['class_names.txt'] = names;
  else if (config)
    throw new ModelPackageError(
      'MODEL_FILE_MISSING',
      `class_names.txt is missing under ${redactQuery(base)}${hostSaid(absent, 'class_names.txt')}`,
    );
  if (type) files['model_type.json'] = type;
  // The architecture matters only to fit-longer-edge (YOLO26 pads grey): asked for only then, so that other
  // packages' pages make no request that answers 404.
  if (config && /"resize_mode"\s*:\s*"fit-longer-edge"/.test(new TextDecoder().decode(config))) {
    const modelConfig = await get('model_config.json', false);
    if (modelConfig) files['model_config.json'] = modelConfig;
  }
  files['weights.onnx'] = (await weights)!;
  if (options.cache) await options.cache.put(manifestUrl, new TextEncoder().encode(JSON.stringify(Object.keys(files))));
  return files;
}

/** The cache entry, beside a package's files, that lists them. */
const MANIFEST = '.edgeseg-package.json';

/** Why an optional file counts as absent. */
export type Absence = 'status 404' | 'status 403' | 'status 410' | 'an empty body' | 'an HTML page';

/** Statuses that static hosts answer for a file they do not have (403: object stores without a listing). */
const ABSENT_STATUSES = new Set([403, 404, 410]);

const SPA_HINT = 'an HTML page, not the file (often a single-page-app fallback: the host serves index.html for paths it does not have)';

/** What the host answered for the files named, where it answered each the same way. */
function hostSaid(absent: Map<string, Absence>, ...names: string[]): string {
  const why = new Set(names.map((n) => absent.get(n)));
  const [only] = why;
  if (why.size !== 1 || only === undefined) return '';
  return `: the host answered ${only === 'an HTML page' ? SPA_HINT : only}`;
}

/**
 * One file by URL, through the cache. An optional file that the host answers with 403, 404 or 410, an empty
 * body or an HTML page is absent (null), as static hosts answer for files they lack; a required one that
 * answers an HTML page is MODEL_FILE_MISSING. Content types are not looked at: hosts get them wrong, the
 * bytes decide.
 */
export async function fetchFile(
  url: string,
  file: string,
  required: boolean,
  options: FetchPackageOptions & { onAbsent?: (why: Absence) => void },
): Promise<Uint8Array | null> {
  throwIfAborted(options.signal);
  // Cache Storage keeps http(s) answers only; a bundler writes a small file as a data: URL, nothing to keep.
  const cache = /^https?:/i.test(url) ? options.cache : null;
  const cached = cache ? await cache.get(url) : null;
  // An HTML page that an older edgeseg kept for a file is not the file: asked for again.
  if (cached && !isHtmlPage(cached)) {
    options.onProgress?.({ file, loaded: cached.length, total: cached.length, cached: true });
    return cached;
  }
  const doFetch = options.fetch ?? globalThis.fetch;
  let response: Response;
  try {
    response = await doFetch(url, options.signal ? { signal: options.signal } : {});
  } catch (cause) {
    if (options.signal?.aborted) throw new EdgesegAbortError(undefined, { cause });
    throw new ModelPackageError(
      'MODEL_DOWNLOAD_FAILED',
      `could not download ${file} from ${redactQuery(url)}: ${(cause as Error).message}`,
      { cause },
    );
  }
  const absent = (why: Absence) => {
    options.onAbsent?.(why);
    return null;
  };
  if (!required && ABSENT_STATUSES.has(response.status)) {
    void response.body?.cancel().catch(() => undefined);
    return absent(`status ${response.status}` as Absence);
  }
  if (!response.ok) {
    void response.body?.cancel().catch(() => undefined);
    throw new ModelPackageError(
      response.status === 404 ? 'MODEL_FILE_MISSING' : 'MODEL_DOWNLOAD_FAILED',
      `downloading ${file} from ${redactQuery(url)} answered ${response.status}`,
    );
  }
  const bytes = await readWithProgress(response, file, options);
  if (isHtmlPage(bytes)) {
    if (!required) return absent('an HTML page');
    throw new ModelPackageError('MODEL_FILE_MISSING', `${file} is missing at ${redactQuery(url)}: the host answered ${SPA_HINT}`);
  }
  if (bytes.length === 0 && !required) return absent('an empty body');
  if (cache) await cache.put(url, bytes);
  return bytes;
}

async function readWithProgress(response: Response, file: string, options: FetchPackageOptions): Promise<Uint8Array> {
  const header = response.headers.get('content-length');
  // A compressed answer's Content-Length counts the encoded bytes, not the decoded ones the body yields (hosts
  // that precompress static files send br or gzip for small text files too): no total to check or show.
  const encoding = response.headers.get('content-encoding');
  const encoded = encoding !== null && encoding.trim().toLowerCase() !== 'identity';
  const total = !encoded && header !== null && /^\d+$/.test(header) ? Number(header) : null;
  if (!response.body) {
    const bytes = new Uint8Array(await response.arrayBuffer());
    options.onProgress?.({ file, loaded: bytes.length, total, cached: false });
    return bytes;
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let loaded = 0;
  options.onProgress?.({ file, loaded: 0, total, cached: false });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      loaded += value.length;
      options.onProgress?.({ file, loaded, total, cached: false });
    }
  } catch (cause) {
    if (options.signal?.aborted) throw new EdgesegAbortError(undefined, { cause });
    throw new ModelPackageError('MODEL_DOWNLOAD_FAILED', `the download of ${file} broke off after ${loaded} bytes`, { cause });
  }
  if (total !== null && loaded !== total) {
    throw new ModelPackageError('MODEL_DOWNLOAD_FAILED', `${file}: got ${loaded} of ${total} bytes`);
  }
  const bytes = new Uint8Array(loaded);
  let offset = 0;
  for (const c of chunks) {
    bytes.set(c, offset);
    offset += c.length;
  }
  return bytes;
}

function absoluteBase(): string | undefined {
  return typeof location !== 'undefined' ? location.href : undefined;
}

/** A URL without its query string: queries may hold an API key, which is never printed. */
export function redactQuery(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : `${url.slice(0, q)}?…`;
}

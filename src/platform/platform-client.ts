// Typed clients for every route of the platform: catalog, search, synthetic images, hosted segmentation.
// Global fetch only, so the same code runs in browsers, workers and Node.
import { IMAGE_FORMATS, sniffImageFormat } from '../decode/image-header.js';
import { InvalidInputError } from '../errors/index.js';
import { bytesToBase64, normalizeHostedPayload, type SegmentationPayload } from '../payload/index.js';
import { validateConfidence } from '../pipeline/confidence.js';
import { AbortedError, InvalidRequestError } from './errors/index.js';
import { requestJson, type HttpSettings, type ParseAnswer, type RequestSpec } from './http.js';
import { redact } from './redact.js';
import {
  SEARCH_EXTENSIONS,
  SEARCH_FIELDS,
  type DefaultSearchField,
  type ExportAnswer,
  type ImageAnswer,
  type OrtAnswer,
  type ProjectAnswer,
  type RootInfo,
  type SearchPage,
  type SearchFieldName,
  type SearchQuery,
  type SyntheticImageAnswer,
  type SyntheticImageRequest,
  type VersionAnswer,
  type WorkspaceAnswer,
} from './types.js';

/** How a {@link PlatformClient} reaches the platform: the key, the two base URLs, the timeout and the retries. */
export interface PlatformClientOptions {
  /** The workspace's API key: sent as the `api_key` query parameter, and masked in every error and log. */
  apiKey: string;
  /**
   * Catalog, search and generation routes; the local platform's (`edgeseg serve`) is `http://127.0.0.1:8787`.
   * @default 'https://api.roboflow.com'
   */
  baseUrl?: string;
  /**
   * The hosted segmentation route; the local platform's is its base URL and `/infer`.
   * @default 'https://segment.roboflow.com'
   */
  inferenceUrl?: string;
  /**
   * The fetch that sends each request (a proxy's, a test's).
   * @default globalThis.fetch
   */
  fetch?: typeof fetch;
  /**
   * Per attempt, in ms; a request with no answer by then fails with TimeoutError and is not retried.
   * @default 60000
   */
  timeoutMs?: number;
  /**
   * Retries of requests that are safe to repeat (on 429, 502, 503, 504 and dropped connections).
   * @default 2
   */
  maxRetries?: number;
  /**
   * First backoff, in ms; doubles each retry (up to 8 s), less up to a quarter of jitter. Retry-After overrides it.
   * @default 500
   */
  retryBaseMs?: number;
}

/** What every method of {@link PlatformClient} takes last. */
export interface CallOptions {
  /** Aborts the call: it rejects with `EdgesegAbortError` (code `ABORTED`). */
  signal?: AbortSignal;
}

/** An image for the hosted route: an http(s) URL, bytes, or explicitly one of the two. */
export type HostedImage =
  | string
  | Uint8Array
  | ArrayBuffer
  | Blob
  | {
      /** An http(s) URL that the platform fetches the image from. */
      url?: string;
      /** The image's encoded bytes, uploaded as base64. */
      bytes?: Uint8Array | ArrayBuffer | Blob;
    };

/**
 * A typed client for the platform's routes: the catalog (workspaces, projects, versions, images, exports,
 * where a version's model is), search, synthetic images and the hosted segmentation route. Requests that are
 * safe to repeat are retried with backoff; every method takes an `AbortSignal`; the key is masked in every
 * error, URL and printout. It uses the global `fetch`, so it runs in browsers, workers and Node alike.
 *
 * @example
 * ```ts
 * import { PlatformClient } from 'edgeseg';
 *
 * // edgeseg serve: { apiKey, baseUrl: 'http://127.0.0.1:8787', inferenceUrl: 'http://127.0.0.1:8787/infer' }
 * const platform = new PlatformClient({ apiKey });
 * const { workspace } = await platform.root(); // the workspace the key belongs to
 * const { version } = await platform.version(workspace, 'my-project', 3); // version.model: its trained model
 * const payload = await platform.segmentHosted('my-project', 3, imageBytes, { confidence: 50 });
 * ```
 */
export class PlatformClient {
  /** The base URL of the catalog, search and generation routes, without a trailing slash. */
  readonly baseUrl: string;
  /** The base URL of the hosted segmentation route, without a trailing slash. */
  readonly inferenceUrl: string;
  readonly #http: HttpSettings;

  /**
   * A client with the key and settings given; nothing is sent until a method is called.
   * @throws {@link InvalidRequestError} when `apiKey` is missing or empty.
   */
  constructor(options: PlatformClientOptions) {
    if (typeof options?.apiKey !== 'string' || options.apiKey.length === 0) {
      throw new InvalidRequestError('apiKey is required');
    }
    this.baseUrl = trimSlash(options.baseUrl ?? 'https://api.roboflow.com');
    this.inferenceUrl = trimSlash(options.inferenceUrl ?? 'https://segment.roboflow.com');
    const f = options.fetch ?? globalThis.fetch;
    this.#http = {
      apiKey: options.apiKey,
      // Bound to the global object: some fetch implementations must not be called as a method.
      fetch: (input, init) => f(input, init),
      timeoutMs: options.timeoutMs ?? 60_000,
      maxRetries: options.maxRetries ?? 2,
      retryBaseMs: options.retryBaseMs ?? 500,
      retryMaxMs: 8_000,
    };
  }

  /** `POST /`, as the platform's Python SDK checks a key: checks the key and says which workspace it belongs to. */
  async root(options: CallOptions = {}): Promise<RootInfo> {
    return this.#request({ method: 'POST', url: `${this.baseUrl}/`, retryable: true, ...signalOf(options) });
  }

  /** `GET /{workspace}`: the workspace's record and its projects'. */
  async workspace(workspace: string, options: CallOptions = {}): Promise<WorkspaceAnswer> {
    return this.#get(this.#path(workspace), options);
  }

  /** `GET /{workspace}/{project}`: the project's record, its workspace's and its versions'. */
  async project(workspace: string, project: string, options: CallOptions = {}): Promise<ProjectAnswer> {
    return this.#get(this.#path(workspace, project), options);
  }

  /**
   * `GET /{workspace}/{project}/{version}`: the version's record (its trained model, where it has one, in
   * `version.model`), with its project's and workspace's.
   */
  async version(workspace: string, project: string, version: number | string, options: CallOptions = {}): Promise<VersionAnswer> {
    return this.#get(this.#path(workspace, project, versionSegment(version)), options);
  }

  /**
   * A download link for the version in `format` (e.g. `png-mask-semantic`, `coco-segmentation`), or its progress
   * while the platform builds it (its 202 answer `{ progress }`, returned as `{ ready: false, progress }`). Asked
   * with `nocache=true`, as the platform's Python SDK asks, so that each call sees the export's progress anew.
   */
  async exportFormat(
    workspace: string,
    project: string,
    version: number | string,
    format: string,
    options: CallOptions = {},
  ): Promise<ExportAnswer> {
    return this.#request(
      {
        method: 'GET',
        url: this.#path(workspace, project, versionSegment(version), format),
        query: { nocache: true },
        retryable: true,
        ...signalOf(options),
      },
      exportAnswer,
    );
  }

  /** Where the platform's own inference server downloads a version's model (the `ort` route). */
  async ort(project: string, version: number | string, options: CallOptions = {}): Promise<OrtAnswer> {
    return this.#get(this.#path('ort', project, versionSegment(version)), options);
  }

  /** One page of images, filtered and ranked. Rules are checked before the request is sent. */
  async search<F extends SearchFieldName = DefaultSearchField>(
    workspace: string,
    project: string,
    query: SearchQuery<F> = {},
    options: CallOptions = {},
  ): Promise<SearchPage<F>> {
    checkSearch(query);
    return this.#request(
      { method: 'POST', url: `${this.#path(workspace, project)}/search`, json: query, retryable: true, ...signalOf(options) },
      searchPage<F>,
    );
  }

  /** One image's record, with a signed URL of its bytes (`urls.original`): what to fetch an image by. */
  async image(workspace: string, project: string, image: string, options: CallOptions = {}): Promise<ImageAnswer> {
    return this.#get(this.#path(workspace, project, 'images', image), options);
  }

  /**
   * Every page of a search, as the platform's Python client pages: `offset` advances by `limit`, and it
   * stops on a short page or when `total` is reached.
   */
  async *searchAll<F extends SearchFieldName = DefaultSearchField>(
    workspace: string,
    project: string,
    query: SearchQuery<F> = {},
    options: CallOptions = {},
  ): AsyncGenerator<SearchPage<F>, void, undefined> {
    const limit = query.limit ?? 50;
    let offset = query.offset ?? 0;
    for (;;) {
      const page = await this.search(workspace, project, { ...query, offset, limit }, options);
      yield page;
      offset += limit;
      if (page.results.length < limit || (typeof page.total === 'number' && offset >= page.total)) return;
    }
  }

  /**
   * Generates images through the workspace's image provider. Never retried: each call costs money.
   * Only the fields given are sent; the platform applies its own defaults.
   */
  async generateSyntheticImage(request: SyntheticImageRequest, options: CallOptions = {}): Promise<SyntheticImageAnswer> {
    const body = await syntheticBody(request);
    return this.#request({ method: 'POST', url: `${this.baseUrl}/synthetic-image`, json: body, retryable: false, ...signalOf(options) });
  }

  /**
   * The hosted segmentation route for `datasetSlug/version`: a URL goes in the `image` query parameter, bytes
   * as the `file` part of a multipart/form-data body (as the platform's Python SDK sends them). Returns the flat
   * payload, checked (the mask decodes and matches `image`).
   *
   * @param datasetSlug - The project's URL slug.
   * @param version - The version number.
   * @param image - An http(s) URL or the image's bytes (not both).
   * @param options - `confidence` and the `signal`.
   * @returns The route's payload, flat (`{ segmentation_mask, class_map, image }`) whichever form it answered in.
   */
  async segmentHosted(
    datasetSlug: string,
    version: number | string,
    image: HostedImage,
    options: CallOptions & {
      /**
       * 0–100: a pixel whose most probable class is less sure than `confidence / 100` is background.
       * @default 50
       */
      confidence?: number;
    } = {},
  ): Promise<SegmentationPayload> {
    let confidence: number;
    try {
      confidence = validateConfidence(options.confidence ?? 50);
    } catch (e) {
      throw new InvalidRequestError((e as Error).message);
    }
    const { url, bytes } = hostedImage(image);
    const spec: RequestSpec = {
      method: 'POST',
      url: `${this.inferenceUrl}/${segment(datasetSlug)}/${versionSegment(version)}`,
      query: { confidence, ...(url === undefined ? {} : { image: url }) },
      retryable: true,
      ...signalOf(options),
    };
    if (bytes !== undefined) {
      // The SDK's form: one part, `file`, named as the SDK names it; fetch writes the boundary.
      const data = await toBytes(bytes);
      const format = sniffImageFormat(data);
      const type =
        format !== null && (IMAGE_FORMATS as readonly string[]).includes(format) ? `image/${format}` : 'application/octet-stream';
      // A Blob takes bytes of an ArrayBuffer only (not of a SharedArrayBuffer).
      const part = data.buffer instanceof ArrayBuffer ? (data as Uint8Array<ArrayBuffer>) : new Uint8Array(data);
      spec.form = new FormData();
      spec.form.append('file', new Blob([part], { type }), 'imageToUpload');
    }
    return this.#request(spec, normalizeHostedPayload);
  }

  /** The key never appears when a client is printed or serialised. */
  toJSON(): Record<string, string> {
    return { baseUrl: this.baseUrl, inferenceUrl: this.inferenceUrl, apiKey: '***' };
  }

  /** `PlatformClient(<baseUrl>)`: no key. */
  toString(): string {
    return `PlatformClient(${this.baseUrl})`;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return this.toString();
  }

  #get<T>(url: string, options: CallOptions): Promise<T> {
    return this.#request({ method: 'GET', url, retryable: true, ...signalOf(options) });
  }

  #request<T>(spec: RequestSpec, parse?: ParseAnswer<T>): Promise<T> {
    return requestJson<T>(this.#http, spec, parse).catch((e: unknown) => {
      // A key that slipped into a message through the platform's own error text is masked too.
      if (e instanceof Error) e.message = redact(e.message, this.#http.apiKey);
      throw e;
    });
  }

  #path(...segments: string[]): string {
    return `${this.baseUrl}/${segments.map(segment).join('/')}`;
  }
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function segment(value: string): string {
  if (typeof value !== 'string' || value.length === 0 || value === '.' || value === '..') {
    throw new InvalidRequestError(`not a valid name in a platform path: ${JSON.stringify(value)}`);
  }
  return encodeURIComponent(value);
}

function versionSegment(version: number | string): string {
  const v = String(version);
  if (!/^\d+$/.test(v)) throw new InvalidRequestError(`a version is a positive integer, got ${JSON.stringify(version)}`);
  return v;
}

function signalOf(options: CallOptions): { signal?: AbortSignal } {
  if (options.signal?.aborted) throw new AbortedError('the request was aborted before it was sent');
  return options.signal ? { signal: options.signal } : {};
}

/** An export's link, or its progress: the platform answers 202 `{ progress }` while it builds the export. */
function exportAnswer(body: object): ExportAnswer {
  const answer = body as { export?: unknown; progress?: unknown; ready?: unknown };
  if (answer.export === undefined && (answer.ready === false || typeof answer.progress === 'number')) {
    const progress = Number(answer.progress ?? 0);
    return { ready: false, progress: Number.isFinite(progress) ? progress : 0 };
  }
  const link = (answer.export as { link?: unknown } | null | undefined)?.link;
  if (typeof link !== 'string') throw new Error('an export answer must have `export.link` or `progress`');
  return body as ExportAnswer;
}

/** A search answer that searchAll can page through: `results` an array, `total` a number when given. */
function searchPage<F extends SearchFieldName>(body: object): SearchPage<F> {
  const page = body as Partial<Record<keyof SearchPage, unknown>>;
  if (!Array.isArray(page.results)) throw new Error('a search page must have a `results` array');
  if (page.total !== undefined && (typeof page.total !== 'number' || !Number.isFinite(page.total))) {
    throw new Error(`a search page's \`total\` must be a number, got ${JSON.stringify(page.total)}`);
  }
  return body as SearchPage<F>;
}

function checkSearch(q: SearchQuery<SearchFieldName>): void {
  if (typeof q !== 'object' || q === null) throw new InvalidRequestError('the search query must be an object');
  if (q.limit !== undefined && (!Number.isInteger(q.limit) || q.limit < 1 || q.limit > 250)) {
    throw new InvalidRequestError(`search limit must be an integer in 1..250, got ${JSON.stringify(q.limit)}`);
  }
  if (q.offset !== undefined && (!Number.isInteger(q.offset) || q.offset < 0)) {
    throw new InvalidRequestError(`search offset must be an integer ≥ 0, got ${JSON.stringify(q.offset)}`);
  }
  if (q.fields !== undefined) {
    if (!Array.isArray(q.fields)) throw new InvalidRequestError('search fields must be an array');
    const allowed: readonly string[] = [...SEARCH_FIELDS, ...SEARCH_EXTENSIONS];
    const unknown = q.fields.filter((f) => !allowed.includes(f));
    if (unknown.length)
      throw new InvalidRequestError(
        `unknown search fields ${unknown.join(', ')}; allowed: ${SEARCH_FIELDS.join(', ')} (local platform: also ${SEARCH_EXTENSIONS.join(', ')})`,
      );
  }
  if (q.in_dataset !== undefined && typeof q.in_dataset !== 'string' && typeof q.in_dataset !== 'boolean') {
    throw new InvalidRequestError('in_dataset must be a string or a boolean');
  }
  for (const key of ['batch', 'annotation_job'] as const) {
    if (q[key] !== undefined && typeof q[key] !== 'boolean') throw new InvalidRequestError(`${key} must be a boolean`);
  }
  for (const key of ['prompt', 'like_image', 'tag', 'class_name', 'batch_id', 'annotation_job_id'] as const) {
    if (q[key] !== undefined && typeof q[key] !== 'string') throw new InvalidRequestError(`${key} must be a string`);
  }
}

async function syntheticBody(request: SyntheticImageRequest): Promise<Record<string, unknown>> {
  if (typeof request !== 'object' || request === null) throw new InvalidRequestError('the request must be an object');
  if (typeof request.prompt !== 'string' || request.prompt.trim() === '') throw new InvalidRequestError('prompt is required');
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(request)) if (v !== undefined && k !== 'image') body[k] = v;
  if (request.image !== undefined) {
    if (typeof request.image === 'string') {
      if (!request.image_type) throw new InvalidRequestError('image_type (id, url or base64) is required when image is given');
      body.image = request.image;
    } else {
      if (request.image_type !== undefined && request.image_type !== 'base64') {
        throw new InvalidRequestError(`image bytes are sent as base64; image_type ${JSON.stringify(request.image_type)} does not fit`);
      }
      body.image = bytesToBase64(await toBytes(request.image));
      body.image_type = 'base64';
    }
  } else if (request.image_type !== undefined) {
    throw new InvalidRequestError('image_type was given without an image');
  }
  if (body.image_type !== undefined && !['id', 'url', 'base64'].includes(body.image_type as string)) {
    throw new InvalidRequestError(`image_type must be id, url or base64, got ${JSON.stringify(body.image_type)}`);
  }
  if (request.n !== undefined && (!Number.isInteger(request.n) || request.n < 1))
    throw new InvalidRequestError('n must be a positive integer');
  return body;
}

function hostedImage(image: HostedImage): { url?: string; bytes?: Uint8Array | ArrayBuffer | Blob } {
  if (typeof image === 'string') {
    if (/^https?:\/\//i.test(image)) return { url: image };
    throw new InvalidRequestError('a string image must be an http(s) URL; pass bytes for an upload');
  }
  if (image instanceof Uint8Array || image instanceof ArrayBuffer || (typeof Blob !== 'undefined' && image instanceof Blob))
    return { bytes: image };
  if (typeof image === 'object' && image !== null) {
    const { url, bytes } = image as { url?: string; bytes?: Uint8Array | ArrayBuffer | Blob };
    if (url !== undefined && bytes !== undefined) throw new InvalidRequestError('give the image as a URL or as bytes, not both');
    if (url !== undefined) return hostedImage(url);
    if (bytes !== undefined) return { bytes };
  }
  throw new InvalidRequestError('the image must be a URL, bytes, or { url } / { bytes }');
}

async function toBytes(value: Uint8Array | ArrayBuffer | Blob): Promise<Uint8Array> {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (typeof Blob !== 'undefined' && value instanceof Blob) return new Uint8Array(await value.arrayBuffer());
  throw new InvalidInputError('IMAGE_SOURCE_INVALID', 'expected bytes (Uint8Array, ArrayBuffer or Blob)');
}

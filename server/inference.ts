// POST {inference}/{project}/{version}: the hosted segmentation route, run by the shared pipeline on
// onnxruntime-node: the reference payload for the browser runtime.
import { bundledModelDir, isBundledModelName } from '../src/node/bundled-model.js';
import { createSegmenter, type NodeSegmenter } from '../src/node/segmenter.js';
import type { SegmentationPayload } from '../src/payload/index.js';
import { DecodeGate, pixelWeight, type DecodeGateLimits } from './decode-gate.js';
import { badRequest, HttpError, notFound } from './http.js';
import { imageFromBody } from './inference-body.js';
import type { Store, VersionState } from './store.js';

export interface InferenceLimits extends DecodeGateLimits {
  /** Bytes of an uploaded or fetched image. */
  maxImageBytes: number;
  maxPixels: number;
  /** Time allowed to fetch an `image` URL, from connecting to the body's last byte. */
  fetchTimeoutMs: number;
}

/** One segmenter per model package, created on first use and kept; and the gate every decode passes. */
export class Segmenters {
  #cache = new Map<string, Promise<NodeSegmenter>>();
  readonly gate: DecodeGate;

  constructor(
    private readonly store: Store,
    private readonly limits: InferenceLimits,
  ) {
    this.gate = new DecodeGate(limits);
  }

  modelDir(version: VersionState): string {
    const dir = version.model!.dir;
    // `bundled` (data directories seeded before the people models) is the shapes model; `bundled:NAME` any.
    if (dir === 'bundled') return bundledModelDir('shapes');
    const name = dir.startsWith('bundled:') ? dir.slice('bundled:'.length) : null;
    if (name !== null) {
      if (!isBundledModelName(name)) throw new Error(`no bundled model named ${JSON.stringify(name)}`);
      return bundledModelDir(name);
    }
    return dir.startsWith('/') ? dir : this.store.path(dir);
  }

  get(version: VersionState): Promise<NodeSegmenter> {
    const dir = this.modelDir(version);
    let seg = this.#cache.get(dir);
    if (!seg) {
      seg = createSegmenter({ model: dir, maxPixels: this.limits.maxPixels });
      seg.catch(() => this.#cache.delete(dir));
      this.#cache.set(dir, seg);
    }
    return seg;
  }

  async close(): Promise<void> {
    for (const seg of this.#cache.values()) await (await seg.catch(() => null))?.dispose();
    this.#cache.clear();
  }
}

/**
 * A number as JSON writes it (and as clients print one: `50`, `37.5`, `1e-7`), not negative: no spaces, no
 * sign, base prefix or `Infinity`, all of which Number() takes.
 */
const DECIMAL = /^(?=.{1,32}$)\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$/;

export async function hostedSegmentation(
  readBody: (limit: number) => Promise<Buffer>,
  url: URL,
  version: VersionState | undefined,
  segmenters: Segmenters,
  limits: InferenceLimits,
  /** The request's `Content-Type`: multipart/form-data bodies carry the image as their `file` part. */
  contentType?: string,
): Promise<SegmentationPayload> {
  if (!version) throw notFound('no such version');
  if (!version.model)
    throw notFound(`version ${version.number} has no trained model`, 'train the version, or use a version whose record has a model');
  const confidenceText = url.searchParams.get('confidence');
  const confidence = confidenceText === null ? 50 : Number(confidenceText);
  // Number() also takes ' 1e1 ', '0x10' and '0b1', which no client means.
  if (confidenceText !== null && (!DECIMAL.test(confidenceText) || confidence < 0 || confidence > 100)) {
    throw badRequest(
      `confidence must be a number in 0–100, got ${JSON.stringify(confidenceText.slice(0, 40))}`,
      'write it as 50 or 37.5',
      'confidence',
    );
  }
  const imageUrl = url.searchParams.get('image');
  const body = await readBody(Math.ceil(limits.maxImageBytes * 1.4) + 1024);
  if (imageUrl !== null && body.length > 0) throw badRequest('give the image as the `image` URL parameter or as the body, not both');
  let bytes: Uint8Array;
  if (imageUrl !== null) bytes = await fetchImage(imageUrl, limits);
  else {
    if (body.length === 0)
      throw badRequest('no image: send it as the body (base64, or a multipart `file` part), or its URL as the `image` parameter');
    bytes = imageFromBody(body, contentType, limits.maxImageBytes);
  }
  // A package or image that edgeseg refuses throws its coded error, answered by the dispatcher (httpErrorOf).
  const segmenter = await segmenters.get(version);
  return segmenters.gate.run(pixelWeight(bytes, limits.maxPixels), () => segmenter.segment(bytes, { confidence }));
}

/**
 * Fetches an `image` URL: over the byte limit is 413 `PayloadTooLarge`; slower than the timeout, whether
 * waiting for the answer or reading its body, is 504 `ImageFetchTimeout` (the gateway-timeout status: the
 * server is the one waiting, on a third party); any other failure is 400 `ImageFetchFailed`.
 */
async function fetchImage(text: string, limits: InferenceLimits): Promise<Uint8Array> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw badRequest(`the image parameter is not a URL: ${JSON.stringify(text.slice(0, 100))}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw badRequest(`only http and https image URLs are fetched, not ${url.protocol}`);
  // One signal for the whole fetch: it also aborts a body that trickles in after prompt headers.
  const signal = AbortSignal.timeout(limits.fetchTimeoutMs);
  const failed = (cause: unknown): HttpError =>
    signal.aborted
      ? new HttpError(
          504,
          `fetching the image took longer than ${limits.fetchTimeoutMs} ms`,
          'ImageFetchTimeout',
          'serve the image faster, or send it as the request body',
        )
      : new HttpError(400, `the image URL could not be fetched: ${(cause as Error).message}`, 'ImageFetchFailed');
  const tooLarge = () => new HttpError(413, `the image at the URL is over ${limits.maxImageBytes} bytes`, 'PayloadTooLarge');
  let response: Response;
  try {
    response = await fetch(url, { signal, redirect: 'follow' });
  } catch (cause) {
    throw failed(cause);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => {});
    throw new HttpError(400, `fetching the image answered ${response.status}`, 'ImageFetchFailed');
  }
  if (Number(response.headers.get('content-length') ?? 0) > limits.maxImageBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  const reader = response.body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch (cause) {
      throw failed(cause);
    }
    if (chunk.done) break;
    size += chunk.value.length;
    if (size > limits.maxImageBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(chunk.value);
  }
  return Buffer.concat(chunks);
}

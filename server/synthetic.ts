// POST /synthetic-image: describe the given image with the provider's vision model (cached per platform
// image id), build the prompt, generate with the provider's image model, store the images in the project.
// The provider is reached over its real HTTP API (OpenAI-compatible); its key lives in workspace settings.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { PixelImage } from '../src/pipeline/types.js';
import { colorBin, COLOR_BINS } from './embedding.js';
import { badRequest, checkFields, HttpError, notFound, shown, stringField } from './http.js';
import { writeAtomic, type ImageState, type ProjectState, type Store, type WorkspaceState } from './store.js';

export const DEFAULT_PROVIDER_URL = 'https://api.openai.com/v1';

/** A provider key as stored or given, where it is one: a blank key (which an earlier version stored) is none. */
export function providerKey(text: string | undefined): string | undefined {
  return text?.trim() ? text : undefined;
}
/** Added to the prompt unless `unmodified_prompt`, as the platform documents it: for photorealism. */
export const PHOTOREALISM = 'Photorealistic photograph, natural lighting, realistic textures, sharp focus, high detail.';
export const CAPTION_PROMPT =
  'Describe this image in detail for an image generation model: the objects, their shapes, colours, positions and the background. Answer with the description only.';
/** The longest prompt taken (the provider's limit for dall-e-3). */
export const MAX_PROMPT_LENGTH = 4000;
/** The most images one request may ask for (the provider API's limit). */
export const MAX_IMAGES = 10;
const DEFAULTS = { model: 'dall-e-3', style: 'natural', size: '1024x1024', quality: 'hd', n: 1 } as const;

export interface SyntheticOptions {
  maxImageBytes: number;
  /** Bytes of a provider's answer (its images come base64-encoded in it); more is 502 `ProviderError`. */
  maxAnswerBytes: number;
  fetchTimeoutMs: number;
  /** Decodes an image the provider made (through the decoder's allow-list and the server's decode gate). */
  decode: (bytes: Uint8Array) => Promise<PixelImage>;
  /** Embeds a new image of `project` for search (the model's own output where a trained version exists). */
  embed: (project: ProjectState) => (rgb: Uint8Array, width: number, height: number) => Promise<{ embedding: number[]; classes: string[] }>;
  /** The (signed) URL at which a stored image is served. */
  imageUrl: (project: ProjectState, image: ImageState) => string;
}

export async function syntheticImage(store: Store, ws: WorkspaceState, body: Record<string, unknown>, options: SyntheticOptions) {
  checkFields(body, {
    image: 'string',
    image_type: 'string',
    project_url: 'string',
    model: 'string',
    style: 'string',
    size: 'string',
    quality: 'string',
    force_caption_regenerate: 'boolean',
    unmodified_prompt: 'boolean',
  });
  // The provider's own limit (dall-e-3: 4000 characters): longer is refused here, before anything is billed.
  const prompt = stringField(body.prompt, 'prompt', MAX_PROMPT_LENGTH)?.trim();
  if (!prompt) throw badRequest('prompt is required', undefined, 'prompt');
  for (const field of ['model', 'style', 'size', 'quality', 'project_url', 'image_type'] as const) stringField(body[field], field, 200);
  // Checked here, not left to the provider: a fraction or a zero would otherwise reach it and be billed
  // or refused with a message about its API rather than this route. The upper bound is the provider API's
  // own (n ≤ 10); each model may have a lower one (dall-e-3: 1), which the provider reports.
  if (
    body.n !== undefined &&
    body.n !== null &&
    (typeof body.n !== 'number' || !Number.isSafeInteger(body.n) || body.n < 1 || body.n > MAX_IMAGES)
  ) {
    throw badRequest(
      `n must be a whole number in 1..${MAX_IMAGES}, got ${shown(body.n)}`,
      'n is how many images to generate; dall-e-3 makes 1 a request',
      'n',
    );
  }
  if (body.image !== undefined && body.image !== null) {
    const type = body.image_type;
    if (type !== 'id' && type !== 'url' && type !== 'base64')
      throw badRequest('image_type must be id, url or base64 when image is given', undefined, 'image_type');
    // Only web URLs go to the provider: it fetches them itself, and a file: or javascript: URL is no image.
    if (type === 'url' && !/^https?:\/\//i.test(body.image as string))
      throw badRequest('an image URL must be http or https', undefined, 'image');
  }
  const key = providerKey(ws.settings.providerApiKey);
  if (key === undefined) {
    throw new HttpError(
      400,
      'no image provider key is configured for this workspace',
      'ProviderNotConfigured',
      'set it in the workspace settings: PUT /{workspace}/settings {"providerApiKey": "…"}',
    );
  }
  const project = pickProject(ws, body.project_url as string | undefined);
  const base = (ws.settings.providerBaseUrl ?? DEFAULT_PROVIDER_URL).replace(/\/+$/, '');
  let caption: string | undefined;
  if (body.image !== undefined && body.image !== null) {
    const type = body.image_type;
    const image = body.image as string;
    if (type === 'id') {
      const cached = ws.captions[image];
      if (cached && body.force_caption_regenerate !== true) caption = cached.caption;
      else {
        const record = ws.projects.flatMap((p) => p.images).find((i) => i.id === image);
        if (!record) throw notFound(`no image ${JSON.stringify(image)} in this workspace`);
        caption = await describe(base, key, ws, dataUrl(await readFile(store.path(record.file))), options);
        const model = ws.settings.captionModel ?? 'gpt-4o';
        await store.update(() => {
          ws.captions[image] = { caption: caption!, model, created: Date.now() };
        });
      }
    } else if (type === 'url') {
      caption = await describe(base, key, ws, image, options);
    } else {
      const bytes = Buffer.from(image.replace(/^data:[^,]*,/, ''), 'base64');
      if (bytes.length > options.maxImageBytes)
        throw new HttpError(413, `the image is over ${options.maxImageBytes} bytes`, 'PayloadTooLarge');
      caption = await describe(base, key, ws, dataUrl(bytes), options);
    }
  }
  const finalPrompt = body.unmodified_prompt === true ? prompt : [caption, prompt, PHOTOREALISM].filter(Boolean).join(' ');
  const request = {
    model: (body.model as string | undefined) ?? DEFAULTS.model,
    prompt: finalPrompt,
    n: (body.n as number | undefined) ?? DEFAULTS.n,
    size: (body.size as string | undefined) ?? DEFAULTS.size,
    quality: (body.quality as string | undefined) ?? DEFAULTS.quality,
    style: (body.style as string | undefined) ?? DEFAULTS.style,
    response_format: 'b64_json',
  };
  const generated = (await provider(base, key, '/images/generations', request, options)) as { data?: { b64_json?: string }[] };
  if (!Array.isArray(generated.data) || generated.data.some((d) => typeof d.b64_json !== 'string')) {
    throw new HttpError(502, 'the image provider answered without images', 'ProviderError');
  }
  const images: ImageState[] = [];
  for (const item of generated.data) {
    const bytes = Buffer.from(item.b64_json!, 'base64');
    // Through the decoder's allow-list: the provider's host is a setting, and its bytes are untrusted.
    const pixels = await options.decode(bytes).catch((cause: unknown) => {
      if (cause instanceof HttpError) throw cause;
      throw new HttpError(
        502,
        `the image provider answered with an image edgeseg does not decode: ${(cause as Error).message}`,
        'ProviderError',
      );
    });
    const meta = { width: pixels.width, height: pixels.height };
    const id = randomBytes(10).toString('hex');
    const file = `files/${ws.url}/${project.url}/images/${id}.png`;
    await writeAtomic(store.path(file), bytes);
    const { embedding, classes } = await options.embed(project)(pixels.data as Uint8Array, pixels.width, pixels.height);
    images.push({
      id,
      name: `synthetic-${id}.png`,
      file,
      width: meta.width,
      height: meta.height,
      split: null,
      tags: ['synthetic'],
      batch: null,
      created: Date.now(),
      owner: 'synthetic-image',
      classes,
      embedding,
    });
  }
  await store.update(() => {
    project.images.push(...images);
    project.updated = Date.now();
  });
  return {
    prompt: finalPrompt,
    ...(caption === undefined ? {} : { caption }),
    images: images.map((i) => ({
      id: i.id,
      name: i.name,
      url: options.imageUrl(project, i),
      project: project.url,
      created: i.created / 1000,
      width: i.width,
      height: i.height,
    })),
  };
}

function pickProject(ws: WorkspaceState, url: string | undefined): ProjectState {
  if (url !== undefined) {
    const p = ws.projects.find((x) => x.url === url);
    if (!p) throw notFound(`no project ${JSON.stringify(url)} in this workspace`);
    return p;
  }
  if (ws.projects.length === 1) return ws.projects[0]!;
  throw badRequest('project_url is required when the workspace has several projects');
}

async function describe(base: string, key: string, ws: WorkspaceState, imageUrl: string, options: SyntheticOptions): Promise<string> {
  const answer = (await provider(
    base,
    key,
    '/chat/completions',
    {
      model: ws.settings.captionModel ?? 'gpt-4o',
      max_tokens: 300,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: CAPTION_PROMPT },
            { type: 'image_url', image_url: { url: imageUrl } },
          ],
        },
      ],
    },
    options,
  )) as { choices?: { message?: { content?: string } }[] };
  const text = answer.choices?.[0]?.message?.content;
  if (typeof text !== 'string' || !text.trim())
    throw new HttpError(502, 'the image provider answered without a description', 'ProviderError');
  return text.trim();
}

async function provider(base: string, key: string, path: string, body: unknown, options: SyntheticOptions): Promise<unknown> {
  let response: Response;
  // One signal for the request and the answer's body: a provider that trickles its answer is cut off too.
  const signal = AbortSignal.timeout(options.fetchTimeoutMs * 6);
  try {
    response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    });
  } catch (cause) {
    throw new HttpError(502, `the image provider could not be reached: ${(cause as Error).message}`, 'ProviderUnavailable');
  }
  if (!response.ok) {
    // Only the status and the provider's error type go back, never its words: `providerBaseUrl` may name
    // any host, and its answers would otherwise let a key holder read a local service through this route.
    const type = errorTypeOf(await readCapped(response, MAX_ERROR_BYTES, signal).catch(() => null));
    // The provider's own refusal (a bad request, a bad key, no credit) is the caller's to fix: 4xx.
    const status =
      response.status === 401 || response.status === 403 ? 400 : response.status === 429 ? 429 : response.status >= 500 ? 502 : 400;
    throw new HttpError(
      status,
      `the image provider refused: it answered ${response.status}${type ? ` (${type})` : ''}`,
      response.status === 401 ? 'ProviderAuthentication' : 'ProviderError',
      "see the provider's own dashboard or logs for why",
    );
  }
  let text: string;
  try {
    text = new TextDecoder().decode(await readCapped(response, options.maxAnswerBytes, signal));
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw new HttpError(502, `the image provider's answer did not arrive: ${(error as Error).message}`, 'ProviderUnavailable');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(502, 'the image provider answered with malformed JSON', 'ProviderError');
  }
}

/** Of a provider's error answer, no more than this is read. */
const MAX_ERROR_BYTES = 65_536;

/**
 * An answer's body, read as it streams in and cut off past `limit` bytes (502 `ProviderError`): a provider
 * that answers gigabytes costs this server `limit` bytes at most.
 */
async function readCapped(response: Response, limit: number, signal: AbortSignal): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? 0);
  const tooLarge = () => new HttpError(502, `the image provider's answer is over the limit of ${limit} bytes`, 'ProviderError');
  if (declared > limit) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!response.body) return new Uint8Array();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    signal.throwIfAborted();
    const chunk = await reader.read();
    if (chunk.done) break;
    size += chunk.value.length;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(chunk.value);
  }
  return Buffer.concat(chunks);
}

/** The OpenAI-shaped error's `type` or `code`, when it is a plain identifier (nothing else of the answer is shown). */
function errorTypeOf(bytes: Uint8Array | null): string | null {
  if (bytes === null) return null;
  try {
    const error = (JSON.parse(new TextDecoder().decode(bytes)) as { error?: { type?: unknown; code?: unknown } } | null)?.error;
    const name = [error?.code, error?.type].find((v) => typeof v === 'string' && /^[a-z0-9_]{1,64}$/.test(v));
    return (name as string | undefined) ?? null;
  } catch {
    return null;
  }
}

/** The image as a data URL of its real type (from its leading bytes): the vision model decodes by that type. */
export function dataUrl(bytes: Uint8Array): string {
  return `data:${imageType(bytes)};base64,${Buffer.from(bytes).toString('base64')}`;
}

/** The media type of encoded image bytes, by their signature; anything unknown is refused. */
export function imageType(bytes: Uint8Array): string {
  const starts = (...sig: number[]) => sig.every((b, i) => bytes[i] === b);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0x52, 0x49, 0x46, 0x46) && String.fromCharCode(...bytes.subarray(8, 12)) === 'WEBP') return 'image/webp';
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'image/gif';
  throw badRequest('the image is not a PNG, JPEG, WebP or GIF', 'the vision model reads only these formats');
}

/** A colour-only embedding, for images of a project that has no trained model yet. */
export function colorOnlyEmbedding(rgb: Uint8Array, classDims: number): number[] {
  const hist = new Float64Array(COLOR_BINS);
  for (let p = 0; p < rgb.length / 3; p++) hist[colorBin(rgb[p * 3]!, rgb[p * 3 + 1]!, rgb[p * 3 + 2]!)]!++;
  const total = rgb.length / 3 || 1;
  const v = [...new Array<number>(classDims).fill(0), ...Array.from(hist, (h) => 0.5 * Math.sqrt(h / total))];
  const n = Math.sqrt(v.reduce((a, x) => a + x * x, 0)) || 1;
  return v.map((x) => x / n);
}

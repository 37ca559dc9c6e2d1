// The local platform as one Node (req, res, next) listener: every route of the platform, on loopback,
// backed by a data directory. The same listener runs standalone (`edgeseg serve`) and inside Vite.
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join, sep } from 'node:path';
import { PACKAGE_FILES } from '../src/model/index.js';
import { redact } from '../src/platform/redact.js';
import { decodeImage } from '../src/node/decode-image.js';
import { createAccessPolicy, duplicateHost, hasDuplicateHost } from './access.js';
import { pixelWeight } from './decode-gate.js';
import { imageEmbedding } from './embedding.js';
import { EXPORT_FORMATS, exportToken } from './exports.js';
import { badRequest, checkFields, HttpError, notFound, readJson, sendError, sendJson, setCorsHeaders, setResourcePolicy } from './http.js';
import { hostedSegmentation, Segmenters, type InferenceLimits } from './inference.js';
import { projectRecord, versionRecord, workspaceRecord, type Urls } from './records.js';
import { search } from './search.js';
import type { UrlSigner } from './signing.js';
import type { ImageState, ProjectState, Store, VersionState, WorkspaceState } from './store.js';
import { colorOnlyEmbedding, syntheticImage } from './synthetic.js';

export interface PlatformHandlerOptions {
  store: Store;
  /** Signs the file URLs the handler hands out and checks them on the file routes. */
  signer: UrlSigner;
  /** Mount point, e.g. `/api` inside the demo's dev server; '' standalone. */
  prefix?: string;
  /**
   * The base URL clients use (for links in answers); default: from the request's Host header. Its host is
   * answered besides loopback names and the server's own address (see access.ts).
   */
  publicUrl?: string;
  /** Origins granted CORS on the keyed routes besides loopback ones (`--allow-origin`). */
  allowOrigins?: readonly string[];
  /**
   * Answer `GET {prefix}/local-key` with the default workspace's key, to pages on this server's own origin
   * only: how the demo that `npm start` serves learns the key. Default false (`edgeseg serve` has no page).
   */
  shareKeyWithPages?: boolean;
  /** Bytes of a JSON body. Default 1 MB. */
  maxJsonBytes?: number;
  limits?: Partial<InferenceLimits>;
  /** Where each request is logged, API keys masked. Default: nowhere. */
  log?: (line: string) => void;
}

export type PlatformHandler = ((req: IncomingMessage, res: ServerResponse, next?: () => void) => void) & {
  close(): Promise<void>;
};

/** Path segments that are the local platform's own routes, not workspace names. */
export const RESERVED = new Set(['ort', 'infer', 'synthetic-image', 'model-files', 'image-files', 'exports', 'local-key']);

/** The routes reached by signed URLs: the signature is the credential, so any origin may read them. */
const FILE_ROUTES = new Set(['model-files', 'image-files', 'exports']);

/** A model package folder's signature as a path segment: `signed.{expires}.{sig}`. */
const SIGNED_SEGMENT = /^signed\.(\d+)\.([0-9a-f]+)$/;

/** What a request may cost; see docs/security.md. */
export const DEFAULT_LIMITS: InferenceLimits = {
  maxImageBytes: 20_000_000,
  maxPixels: 50_000_000,
  fetchTimeoutMs: 10_000,
  // One image of the largest size allowed at a time (about 800 MB while it decodes and runs), or many small ones.
  maxDecodePixels: 50_000_000,
  maxDecodesWaiting: 8,
  retryAfterS: 5,
};

export function createPlatformHandler(options: PlatformHandlerOptions): PlatformHandler {
  const { store, signer } = options;
  const prefix = (options.prefix ?? '').replace(/\/+$/, '');
  const maxJson = options.maxJsonBytes ?? 1_000_000;
  const limits: InferenceLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const segmenters = new Segmenters(store, limits);
  const access = createAccessPolicy({
    ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
    ...(options.allowOrigins ? { allowOrigins: options.allowOrigins } : {}),
  });

  const urlsOf = (req: IncomingMessage): Urls => {
    const base = options.publicUrl ? options.publicUrl.replace(/\/+$/, '') : `http://${req.headers.host ?? '127.0.0.1'}${prefix}`;
    return { base, inference: `${base}/infer` };
  };

  // File URLs carry a signature instead of the key (see signing.ts): the scope is the path below the mount
  // point, so a URL stays valid whatever host or prefix it was reached through.
  const imageUrl = (urls: Urls, ws: WorkspaceState, project: string) => (image: ImageState) => {
    const scope = `/image-files/${ws.url}/${project}/${image.id}`;
    return signer.signUrl(`${urls.base}${scope}`, scope);
  };
  const modelFolder = (ws: WorkspaceState, project: ProjectState, version: VersionState) =>
    `/model-files/${ws.url}/${project.url}/${version.number}/`;
  /**
   * The package as a folder URL, its signature a path segment: clients resolve file names against a
   * folder URL (`new URL('weights.onnx', base)`), which would drop a query string.
   */
  const packageUrl = (urls: Urls, ws: WorkspaceState, project: ProjectState, version: VersionState) => {
    const folder = modelFolder(ws, project, version);
    const { expires, sig } = signer.sign(folder);
    return `${urls.base}${folder}signed.${expires}.${sig}/`;
  };

  /** Embedding of a new image: the model's own output where the project has a trained version. */
  const embedFor = (ws: WorkspaceState, project: ProjectState) => async (rgb: Uint8Array, width: number, height: number) => {
    const version = [...project.versions].reverse().find((v) => v.model);
    const background = project.classes.indexOf('background');
    if (!version) return { embedding: colorOnlyEmbedding(rgb, project.classes.length - 1), classes: [] };
    const raw = await (await segmenters.get(version)).segmentRaw({ data: rgb, width, height, channels: 3 });
    const present = [...new Set(raw.classIds)].filter((c) => c !== background);
    return {
      embedding: imageEmbedding(rgb, raw.classIds, project.classes.length, background),
      classes: present.map((c) => project.classes[c]!),
    };
  };

  const authenticate = (url: URL, workspace?: string): WorkspaceState => {
    const key = url.searchParams.get('api_key');
    const ws = key ? store.workspaceByKey(key) : undefined;
    if (!ws)
      throw new HttpError(
        401,
        key ? 'This API key does not exist (or has been revoked).' : 'An api_key query parameter is required.',
        'OAuthException',
        'pass your workspace API key as ?api_key=…',
      );
    if (workspace !== undefined && workspace !== ws.url)
      throw new HttpError(403, `This API key cannot access workspace ${workspace}.`, 'OAuthException', 'use the key of that workspace');
    return ws;
  };

  const route = async (req: IncomingMessage, res: ServerResponse, url: URL, parts: string[]): Promise<void> => {
    const method = req.method ?? 'GET';
    const urls = urlsOf(req);
    const [first, second, third, fourth, ...rest] = parts;

    // Files clients download without the key, by the signed URLs the other routes hand out (as the
    // platform's signed storage URLs): model packages, images, exports. The signature is checked first, so
    // an unsigned request learns nothing, not even whether the file exists.
    const signedFolder = first === 'model-files' && parts.length === 6 ? SIGNED_SEGMENT.exec(rest[0]!) : null;
    if (method === 'GET' && first === 'model-files' && (parts.length === 5 || signedFolder)) {
      const folder = `/model-files/${second}/${third}/${fourth}/`;
      if (signedFolder) signer.verify(folder, signedFolder[1]!, signedFolder[2]!);
      else signer.verify(folder, url.searchParams.get('expires'), url.searchParams.get('sig'));
      const file = rest.at(-1)!;
      const version = findVersion(findWorkspaceByUrl(second!), third!, fourth!);
      if (!version.model || !(PACKAGE_FILES as readonly string[]).includes(file)) throw notFound('no such model file');
      const dir = segmenters.modelDir(version);
      return sendFile(res, dir, join(dir, file), 'application/octet-stream');
    }
    if (method === 'GET' && first === 'image-files' && parts.length === 4) {
      signer.verify(`/${parts.join('/')}`, url.searchParams.get('expires'), url.searchParams.get('sig'));
      const image = findProject(findWorkspaceByUrl(second!), third!).images.find((i) => i.id === fourth);
      if (!image) throw notFound('no such image');
      return sendFile(res, store.dir, store.path(image.file), image.file.endsWith('.png') ? 'image/png' : 'image/jpeg');
    }
    if (method === 'GET' && first === 'exports' && parts.length === 3) {
      signer.verify(`/${parts.join('/')}`, url.searchParams.get('expires'), url.searchParams.get('sig'));
      const entry = store.state.exports[second!];
      if (!entry) throw notFound('no such export (links come from the export route)');
      return sendFile(res, store.dir, store.path(entry.file), 'application/zip', third);
    }

    if (first === 'local-key' && parts.length === 1 && method === 'GET' && options.shareKeyWithPages) {
      // Only for a page of this origin: the host check has already refused rebound names, and a page on
      // another origin (even a loopback one, which the keyed routes grant CORS) is refused here.
      if (!access.sameOrigin(req)) throw new HttpError(403, 'the key is given only to pages of this origin', 'OriginNotAllowed');
      const ws = store.state.workspaces[0]!;
      res.setHeader('cache-control', 'no-store');
      return sendJson(res, 200, { apiKey: ws.apiKey, workspace: ws.url });
    }
    if (parts.length === 0 && (method === 'GET' || method === 'POST')) {
      const ws = authenticate(url);
      return sendJson(res, 200, {
        welcome: 'Welcome to the edgeseg local platform.',
        instructions: 'You are successfully authenticated.',
        docs: 'https://github.com/ (see the edgeseg README: "The local platform")',
        workspace: ws.url,
      });
    }
    if (first === 'synthetic-image' && parts.length === 1) {
      if (method !== 'POST') throw new HttpError(405, 'use POST', 'MethodNotAllowed');
      const ws = authenticate(url);
      const body = await readJson(req, maxJson + 30_000_000);
      return sendJson(
        res,
        200,
        await syntheticImage(store, ws, body, {
          maxImageBytes: limits.maxImageBytes,
          // As /infer caps the image it fetches.
          maxAnswerBytes: limits.maxImageBytes,
          fetchTimeoutMs: limits.fetchTimeoutMs,
          decode: (bytes) =>
            segmenters.gate.run(pixelWeight(bytes, limits.maxPixels), () => decodeImage(bytes, { maxPixels: limits.maxPixels })),
          embed: (project) => embedFor(ws, project),
          imageUrl: (project, image) => imageUrl(urls, ws, project.url)(image),
        }),
      );
    }
    if (first === 'infer' && parts.length === 3) {
      if (method !== 'POST') throw new HttpError(405, 'use POST', 'MethodNotAllowed');
      const ws = authenticate(url);
      const project = findProject(ws, second!);
      return sendJson(
        res,
        200,
        await hostedSegmentation(
          req,
          url,
          project.versions.find((v) => String(v.number) === third),
          segmenters,
          limits,
        ),
      );
    }
    if (first === 'ort' && parts.length === 3 && method === 'GET') {
      const ws = authenticate(url);
      const project = findProject(ws, second!);
      const version = findVersion(ws, second!, third!);
      if (!version.model) throw notFound(`version ${version.number} of ${project.url} has no trained model`);
      // One signature for the version's folder; as a query, which the package caches leave out of their
      // keys, so a fresh signature on the next start still finds the cached files.
      const folder = modelFolder(ws, project, version);
      const file = (name: string) => signer.signUrl(`${urls.base}${folder}${name}`, folder);
      const dir = segmenters.modelDir(version);
      const has = async (name: string) => (await stat(join(dir, name)).catch(() => null)) !== null;
      return sendJson(res, 200, {
        ort: {
          classes: project.classes,
          model: file('weights.onnx'),
          ...((await has('environment.json')) ? { environment: file('environment.json') } : {}),
          ...((await has('inference_config.json')) ? { inference_config: file('inference_config.json') } : {}),
          colors: project.colors,
          modelType: version.model.modelType,
        },
      });
    }
    if (first !== undefined && RESERVED.has(first)) throw notFound(`no route ${method} /${parts.join('/')}`);

    // Workspace-scoped routes.
    if (first === undefined) throw notFound('no route');
    const ws = authenticate(url, first);
    if (parts.length === 1 && method === 'GET') {
      return sendJson(res, 200, { workspace: { ...workspaceRecord(ws), projects: ws.projects.map((p) => projectRecord(ws, p)) } });
    }
    if (parts.length === 2 && second === 'settings') return settings(req, res, ws);
    const project = findProject(ws, second!);
    if (parts.length === 2 && method === 'GET') {
      return sendJson(res, 200, {
        workspace: workspaceRecord(ws),
        project: projectRecord(ws, project),
        versions: project.versions.map((v) => versionRecord(ws, project, v, urls, [], packageUrl(urls, ws, project, v))),
      });
    }
    if (parts.length === 3 && third === 'search') {
      if (method !== 'POST') throw new HttpError(405, 'use POST', 'MethodNotAllowed');
      return sendJson(res, 200, search(project, await readJson(req, maxJson), imageUrl(urls, ws, project.url)));
    }
    if (parts.length === 4 && third === 'images' && method === 'GET') {
      const image = project.images.find((i) => i.id === fourth || i.name === fourth);
      if (!image) throw notFound(`no image ${JSON.stringify(fourth)} in ${project.url}`);
      const file = imageUrl(urls, ws, project.url)(image);
      return sendJson(res, 200, {
        image: {
          id: image.id,
          name: image.name,
          width: image.width,
          height: image.height,
          split: image.split,
          tags: image.tags,
          batch: image.batch,
          created: image.created / 1000,
          owner: image.owner,
          labels: image.classes,
          urls: { original: file },
        },
      });
    }
    const version = findVersion(ws, project.url, third!);
    if (parts.length === 3 && method === 'GET') {
      return sendJson(res, 200, {
        workspace: workspaceRecord(ws),
        project: projectRecord(ws, project),
        version: versionRecord(
          ws,
          project,
          version,
          urls,
          builtExports(ws.url, project.url, version.number),
          packageUrl(urls, ws, project, version),
        ),
      });
    }
    if (parts.length === 4 && method === 'GET') {
      const format = fourth!;
      const token = await exportToken(store, ws, project, version, format);
      const scope = `/exports/${token}/${project.url}-${version.number}-${format}.zip`;
      return sendJson(res, 200, { export: { link: signer.signUrl(`${urls.base}${scope}`, scope), format } });
    }
    throw notFound(`no route ${method} /${parts.join('/')}`);
  };

  const builtExports = (ws: string, project: string, version: number) =>
    EXPORT_FORMATS.filter((f) => Object.values(store.state.exports).some((e) => e.file === `exports/${ws}-${project}-${version}-${f}.zip`));

  const settings = async (req: IncomingMessage, res: ServerResponse, ws: WorkspaceState) => {
    if (req.method === 'PUT' || req.method === 'POST') {
      const body = await readJson(req, maxJson);
      checkFields(body, { providerApiKey: 'string', providerBaseUrl: 'string', captionModel: 'string' });
      if (typeof body.providerBaseUrl === 'string' && !/^https?:\/\//.test(body.providerBaseUrl))
        throw badRequest('providerBaseUrl must be an http(s) URL');
      await store.update(() => {
        for (const k of ['providerApiKey', 'providerBaseUrl', 'captionModel'] as const)
          if (typeof body[k] === 'string') ws.settings[k] = body[k];
      });
    } else if (req.method !== 'GET') throw new HttpError(405, 'use GET or PUT', 'MethodNotAllowed');
    // The provider key itself is never returned.
    return sendJson(res, 200, {
      settings: {
        providerConfigured: Boolean(ws.settings.providerApiKey),
        providerBaseUrl: ws.settings.providerBaseUrl ?? null,
        captionModel: ws.settings.captionModel ?? 'gpt-4o',
      },
    });
  };

  const findWorkspaceByUrl = (url: string) => {
    const ws = store.state.workspaces.find((w) => w.url === url);
    if (!ws) throw notFound('no such workspace');
    return ws;
  };

  /** Every key the data directory holds: masked wherever they appear in a log line. */
  const secrets = () => store.state.workspaces.flatMap((w) => [w.apiKey, w.settings.providerApiKey]);

  const failed = (res: ServerResponse, error: unknown) => {
    if (error instanceof HttpError) return sendError(res, error);
    options.log?.(redact(`error: ${(error as Error)?.stack ?? String(error)}`, ...secrets()));
    sendError(res, new HttpError(500, 'the local platform failed on this request', 'InternalError'));
  };

  const handle = (req: IncomingMessage, res: ServerResponse, next?: () => void) => {
    // The path as sent: URL parsing would resolve "%2e%2e" segments before we could refuse them, and
    // throws on some (`//?x`, a scheme-relative URL without a host).
    const [rawPath = '/', query = ''] = (req.url ?? '/').split(/\?(.*)/s);
    const url = new URL('http://localhost/');
    url.search = query;
    if (prefix && rawPath !== prefix && !rawPath.startsWith(`${prefix}/`)) {
      if (next) return next();
      return sendError(res, notFound('not a platform route'));
    }
    // Refusals are logged too: they are what a user debugging a refused page needs to see.
    const started = Date.now();
    // Keys in every spelling the server reads, and signatures (a logged file URL would otherwise grant the
    // file to whoever reads the log), are masked.
    res.on('finish', () =>
      options.log?.(`${req.method} ${loggedUrl(rawPath, query, secrets())} ${res.statusCode} ${Date.now() - started} ms`),
    );
    // Before anything else: a rebound name gets nothing, not even CORS headers.
    if (hasDuplicateHost(req)) return sendError(res, duplicateHost());
    if (!access.hostAllowed(req)) {
      return sendError(
        res,
        new HttpError(
          403,
          'this server answers only requests addressed to it (its own address, a loopback name, or its public URL)',
          'HostNotAllowed',
          'reach it as 127.0.0.1 or localhost, or start it with --public-url naming the host clients use',
        ),
      );
    }
    const firstSegment = rawPath
      .slice(prefix.length)
      .split('/')
      .find((s) => s.length > 0);
    const origin = req.headers.origin;
    if (firstSegment !== undefined && FILE_ROUTES.has(firstSegment)) {
      setCorsHeaders(res, '*');
      setResourcePolicy(res);
    } else if (origin !== undefined) {
      if (!access.originAllowed(origin, req)) {
        return sendError(
          res,
          new HttpError(
            403,
            'this origin may not call the local platform',
            'OriginNotAllowed',
            'pages on loopback origins may; name others with --allow-origin',
          ),
        );
      }
      setCorsHeaders(res, origin);
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(204).end();
      return;
    }
    let parts: string[];
    try {
      parts = pathParts(rawPath.slice(prefix.length));
    } catch (error) {
      return sendError(res, error as HttpError);
    }
    route(req, res, url, parts).catch((error: unknown) => failed(res, error));
  };

  // Whatever the handler throws is answered: a throw in a request listener would end the process.
  const handler = ((req: IncomingMessage, res: ServerResponse, next?: () => void) => {
    try {
      handle(req, res, next);
    } catch (error) {
      failed(res, error);
    }
  }) as PlatformHandler;
  handler.close = () => segmenters.close();
  return handler;
}

/** Query parameters whose values are never logged: the key (as any parameter-name spelling decodes) and signatures. */
const SECRET_PARAMS = /^(?:api_key|apikey|key|token|sig)$/i;

/**
 * A request's URL as the log shows it. The query is decoded as the server reads it, so `api%5Fkey=…` and
 * `%61pi_key=…` are the `api_key` they are, each secret parameter's value is masked, a URL inside a
 * parameter (`image=http://…?api_key=…`) has its own query masked the same way, and each known key is
 * masked wherever else it appears, in the path or encoded.
 */
export function loggedUrl(rawPath: string, query: string, secrets: readonly (string | undefined)[]): string {
  const maskQuery = (text: string, depth: number): string =>
    [...new URLSearchParams(text)]
      .map(([name, value]) => {
        const shown = SECRET_PARAMS.test(name) ? '***' : depth < 3 ? maskInnerUrl(value, depth) : value;
        return `${encodeURIComponent(name)}=${encodeURIComponent(shown).replace(/%2A/g, '*')}`;
      })
      .join('&');
  const maskInnerUrl = (value: string, depth: number) => {
    const at = value.indexOf('?');
    return at < 0 ? value : `${value.slice(0, at)}?${maskQuery(value.slice(at + 1), depth + 1)}`;
  };
  let path = rawPath.replace(/\/signed\.(\d+)\.[0-9a-f]+/g, '/signed.$1.***');
  let decodedPath = path;
  try {
    decodedPath = decodeURIComponent(path);
  } catch {
    // shown as sent
  }
  if (redact(decodedPath, ...secrets) !== decodedPath) path = redact(decodedPath, ...secrets);
  return redact(`${path}${query ? `?${maskQuery(query, 0)}` : ''}`, ...secrets);
}

/** Decoded path segments; anything that could leave its folder (.., slashes, NUL) is refused. */
function pathParts(path: string): string[] {
  const raw = path.split('/').filter((s) => s.length > 0);
  return raw.map((segment) => {
    let s: string;
    try {
      s = decodeURIComponent(segment);
    } catch {
      throw badRequest('malformed path');
    }
    if (s === '.' || s === '..' || /[/\\\0]/.test(s))
      throw badRequest('the path tries to leave its folder', 'names cannot contain "/", "\\" or be ".."');
    return s;
  });
}

function findProject(ws: WorkspaceState, url: string) {
  const project = ws.projects.find((p) => p.url === url);
  if (!project) throw notFound(`no project ${JSON.stringify(url)} in workspace ${ws.url}`);
  return project;
}

function findVersion(ws: WorkspaceState, projectUrl: string, number: string) {
  const project = findProject(ws, projectUrl);
  if (!/^\d{1,9}$/.test(number))
    throw badRequest(`a version is a whole number in 1..999999999, got ${JSON.stringify(number.slice(0, 40))}`, undefined, 'version');
  const version = project.versions.find((v) => v.number === Number(number));
  if (!version) throw notFound(`no version ${number} of ${projectUrl}`);
  return version;
}

/**
 * Sends a regular file that lies inside `root`, symbolic links resolved first: a link in the data directory
 * (or a model folder) that leads out of it is answered as a missing file, as are directories and devices.
 */
async function sendFile(res: ServerResponse, root: string, path: string, type: string, downloadName?: string): Promise<void> {
  const [realRoot, real] = await Promise.all([realpath(root).catch(() => null), realpath(path).catch(() => null)]);
  if (realRoot === null || real === null || !real.startsWith(realRoot + sep)) throw notFound('the file is gone');
  path = real;
  const info = await stat(path).catch(() => null);
  if (!info?.isFile()) throw notFound('the file is gone');
  res.writeHead(200, {
    'content-type': type,
    'content-length': info.size,
    'cache-control': 'public, max-age=3600',
    ...(downloadName ? { 'content-disposition': `attachment; filename="${downloadName.replace(/[^\w.-]/g, '_')}"` } : {}),
  });
  await new Promise<void>((resolve, reject) => createReadStream(path).on('error', reject).on('end', resolve).pipe(res));
}

// The local platform as one Node (req, res, next) listener: every route of the platform, on loopback,
// backed by a data directory. The same listener runs standalone (`edgeseg serve`) and inside Vite.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_MAX_PIXELS } from '../src/decode/image-header.js';
import { createAccessPolicy, duplicateHost, hasDuplicateHost } from './access.js';
import { BodyBudget, type BodyBudgetLimits } from './body-budget.js';
import { badRequest, HttpError, httpErrorOf, notFound, readBody, readJson, sendError, setCorsHeaders, setResourcePolicy } from './http.js';
import { Segmenters, type InferenceLimits } from './inference.js';
import type { Urls } from './records.js';
import { loggedUrl, maskSecrets } from './request-log.js';
import { catalogRoutes } from './routes/catalog.js';
import { fileRoutes } from './routes/files.js';
import { inferenceRoute } from './routes/inference.js';
import { localKeyRoute } from './routes/local-key.js';
import { notLocalPlatformRoutes, notLocalWorkspaceRoutes } from './routes/not-local.js';
import { ortRoute } from './routes/ort.js';
import { findProject, findVersion, matchPath, type Layer, type Platform, type Route, type RouteContext } from './routes/route.js';
import { searchRoute } from './routes/search.js';
import { settingsRoute } from './routes/settings.js';
import { syntheticRoute } from './routes/synthetic.js';
import { trainingsRoutes } from './routes/trainings.js';
import type { UrlSigner } from './signing.js';
import type { Store, WorkspaceState } from './store.js';

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
  limits?: Partial<PlatformLimits>;
  /** Where each request is logged, API keys masked. Default: nowhere. */
  log?: (line: string) => void;
}

export type PlatformHandler = ((req: IncomingMessage, res: ServerResponse, next?: () => void) => void) & {
  close(): Promise<void>;
  /** The request bodies held in memory now, and the most held at once. */
  readonly bodies: Pick<BodyBudget, 'held'>;
};

/** What requests may cost the platform, all together; see docs/security.md. */
export type PlatformLimits = InferenceLimits & BodyBudgetLimits;

/** Path segments that are the local platform's own routes, not workspace names. */
export const RESERVED = new Set(['ort', 'infer', 'synthetic-image', 'model-files', 'image-files', 'exports', 'local-key', 'dataset']);

/** What a request may cost; see docs/security.md. */
export const DEFAULT_LIMITS: PlatformLimits = {
  maxImageBytes: 20_000_000,
  maxPixels: DEFAULT_MAX_PIXELS,
  fetchTimeoutMs: 10_000,
  // One image of the largest size allowed at a time (about 800 MB while it decodes and runs), or many small ones.
  maxDecodePixels: DEFAULT_MAX_PIXELS,
  maxDecodesWaiting: 8,
  retryAfterS: 5,
  // Four of the largest bodies (a 31 MB synthetic-image request) from one key, eight in all.
  maxBodyBytesPerKey: 128_000_000,
  maxBodyBytesInFlight: 256_000_000,
};

export function createPlatformHandler(options: PlatformHandlerOptions): PlatformHandler {
  const { store, signer } = options;
  const prefix = (options.prefix ?? '').replace(/\/+$/, '');
  const limits: PlatformLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const segmenters = new Segmenters(store, limits);
  const bodies = new BodyBudget(limits);
  const access = createAccessPolicy({
    ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
    ...(options.allowOrigins ? { allowOrigins: options.allowOrigins } : {}),
  });
  const platform: Platform = { store, signer, segmenters, limits, maxJson: options.maxJsonBytes ?? 1_000_000, access };
  const catalog = catalogRoutes(platform);

  // The platform's own routes, under the reserved names (and `/`); their paths do not overlap.
  const platformRoutes: Route[] = [
    ...fileRoutes(platform),
    ...(options.shareKeyWithPages ? [localKeyRoute(platform)] : []),
    catalog.welcome,
    syntheticRoute(platform),
    inferenceRoute(platform),
    ortRoute(platform),
    ...notLocalPlatformRoutes(),
  ];
  // Below a workspace, whose key the dispatcher has checked, in order: each look-up answers the requests that
  // reach it (a missing project before a malformed version), whether or not a route below it matches.
  const workspaceRoutes: Layer[] = [
    ...notLocalWorkspaceRoutes(),
    catalog.workspace,
    settingsRoute(platform),
    { run: (ctx) => void (ctx.project = findProject(ctx.ws!, ctx.parts[1]!)) },
    catalog.project,
    searchRoute(platform),
    catalog.image,
    { run: (ctx) => void (ctx.version = findVersion(ctx.ws!, ctx.project!.url, ctx.parts[2]!)) },
    catalog.version,
    ...trainingsRoutes(),
    catalog.exportLink,
  ];
  /** The routes reached by signed URLs: the signature is the credential, so any origin may read them. */
  const fileRouteNames = new Set(platformRoutes.filter((r) => r.auth === 'signature').map((r) => r.path.split('/')[1]!));

  const urlsOf = (req: IncomingMessage): Urls => {
    const base = options.publicUrl ? options.publicUrl.replace(/\/+$/, '') : `http://${req.headers.host ?? '127.0.0.1'}${prefix}`;
    return { base, inference: `${base}/infer` };
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

  /** Runs the first route of `layers` that matches, and the steps before it; false when none matched. */
  const runTable = async (layers: readonly Layer[], ctx: RouteContext): Promise<boolean> => {
    for (const layer of layers) {
      if (!('path' in layer)) {
        layer.run(ctx);
        continue;
      }
      const params = matchPath(layer, ctx.parts);
      if (params === null) continue;
      if (!layer.methods.includes(ctx.method)) {
        if (layer.otherMethods !== undefined) throw new HttpError(405, layer.otherMethods, 'MethodNotAllowed');
        continue;
      }
      ctx.params = params;
      if (layer.auth === 'key') ctx.ws = authenticate(ctx.url);
      await layer.answer(ctx);
      return true;
    }
    return false;
  };

  const route = async (req: IncomingMessage, res: ServerResponse, url: URL, parts: string[]): Promise<void> => {
    // HEAD is answered wherever GET is, with the same status and headers: Node sends no body for a HEAD
    // request, whatever the route writes. Clients check a URL so before using it (the SDK checks image URLs).
    const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');
    // Every body is charged to the budget under the caller's workspace (routes read bodies only after its
    // key is checked), and given back once the request is answered or dropped.
    const hold = () => {
      const h = bodies.hold(ctx.ws?.url ?? '');
      res.once('close', h.release);
      return h;
    };
    const ctx: RouteContext = {
      req,
      res,
      url,
      method,
      parts,
      params: {},
      urls: urlsOf(req),
      readBody: (limit) => readBody(req, limit, hold()),
      readJson: (limit) => readJson(req, limit, hold()),
    };
    if (await runTable(platformRoutes, ctx)) return;
    const [first] = parts;
    if (first !== undefined && RESERVED.has(first)) throw notFound(`no route ${method} /${parts.join('/')}`);
    if (first === undefined) throw notFound('no route');
    // Any other path is a workspace's: the key before anything else, so that a caller without it learns
    // nothing of what the workspace holds.
    ctx.ws = authenticate(url, first);
    if (await runTable(workspaceRoutes, ctx)) return;
    throw notFound(`no route ${method} /${parts.join('/')}`);
  };

  /** Every key the data directory holds: masked wherever they appear in a log line. */
  const secrets = () => store.state.workspaces.flatMap((w) => [w.apiKey, w.settings.providerApiKey]);

  const failed = (res: ServerResponse, error: unknown) => {
    const coded = httpErrorOf(error);
    if (coded) return sendError(res, coded);
    options.log?.(maskSecrets(`error: ${(error as Error)?.stack ?? String(error)}`, secrets()));
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
    if (firstSegment !== undefined && fileRouteNames.has(firstSegment)) {
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
  Object.defineProperty(handler, 'bodies', { value: bodies });
  return handler;
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

// What a route of the local platform is (a method and path pattern, and the answer), what routes share, and
// the look-ups and signed links several route groups make. The dispatcher that runs the table is handler.ts.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AccessPolicy } from '../access.js';
import { badRequest, notFound } from '../http.js';
import type { InferenceLimits, Segmenters } from '../inference.js';
import type { Urls } from '../records.js';
import type { UrlSigner } from '../signing.js';
import type { ImageState, ProjectState, Store, VersionState, WorkspaceState } from '../store.js';

/** What every route group is built with: one per handler. */
export interface Platform {
  store: Store;
  signer: UrlSigner;
  segmenters: Segmenters;
  limits: InferenceLimits;
  /** Bytes of a JSON body. */
  maxJson: number;
  access: AccessPolicy;
}

/** One request as the routes see it; the dispatcher fills in what it has checked or looked up. */
export interface RouteContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  /** Only its query is the request's: the path is read as sent (see handler.ts). */
  readonly url: URL;
  readonly method: string;
  /** The decoded path segments below the mount point. */
  readonly parts: readonly string[];
  /** The named segments of the route that answers. */
  params: Readonly<Record<string, string>>;
  readonly urls: Urls;
  /**
   * The request's body, and its body as a JSON object: the only way routes read one, so that every body is
   * charged to the server's budget for bodies (body-budget.ts) under the caller's key.
   */
  readonly readBody: (limit: number) => Promise<Buffer>;
  readonly readJson: (limit: number) => Promise<Record<string, unknown>>;
  /** The caller's workspace, once its key is checked. */
  ws?: WorkspaceState;
  project?: ProjectState;
  version?: VersionState;
}

export interface Route {
  /** The methods it answers. */
  methods: readonly string[];
  /**
   * `/infer/:project/:version`: literal segments and named ones (`:name`), matched against the decoded
   * segments, exactly as many as the pattern has.
   */
  path: string;
  /** Patterns a named segment must also match, or the route is not the one. */
  where?: Readonly<Record<string, RegExp>>;
  /**
   * `key`: the dispatcher checks the API key (of any workspace) before the route runs. `signature`: a signed
   * file URL, checked by the route (which knows the scope signed); these routes grant CORS to any origin.
   * Absent: the route's scope (a workspace's) or the route itself checks.
   */
  auth?: 'key' | 'signature';
  /**
   * The 405's hint for the methods the route does not answer. Without it they go on down the table (and end
   * in the 404): a route that answers 405 tells the caller that the path exists.
   */
  otherMethods?: string;
  answer(ctx: RouteContext): Promise<void> | void;
}

/** A step every request that reaches it in the table runs: a look-up whose failure answers the request. */
export interface Step {
  run(ctx: RouteContext): void;
}

export type Layer = Route | Step;

/** The named segments of `route`'s path in `parts`, or null when the path is not the route's. */
export function matchPath(route: Pick<Route, 'path' | 'where'>, parts: readonly string[]): Record<string, string> | null {
  const pattern = route.path.split('/').filter((s) => s.length > 0);
  if (pattern.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (const [i, segment] of pattern.entries()) {
    const part = parts[i]!;
    if (!segment.startsWith(':')) {
      if (segment !== part) return null;
      continue;
    }
    const name = segment.slice(1);
    if (route.where?.[name]?.test(part) === false) return null;
    params[name] = part;
  }
  return params;
}

/** A model package folder's signature as a path segment: `signed.{expires}.{sig}`. */
export const SIGNED_SEGMENT = /^signed\.(\d+)\.([0-9a-f]+)$/;

// File URLs carry a signature instead of the key (see signing.ts): the scope is the path below the mount
// point, so a URL stays valid whatever host or prefix it was reached through.
export const imageUrl = (signer: UrlSigner, urls: Urls, ws: WorkspaceState, project: string) => (image: ImageState) => {
  const scope = `/image-files/${ws.url}/${project}/${image.id}`;
  return signer.signUrl(`${urls.base}${scope}`, scope);
};

export const modelFolder = (ws: WorkspaceState, project: ProjectState, version: VersionState) =>
  `/model-files/${ws.url}/${project.url}/${version.number}/`;

/**
 * The package as a folder URL, its signature a path segment: clients resolve file names against a
 * folder URL (`new URL('weights.onnx', base)`), which would drop a query string.
 */
export const packageUrl = (signer: UrlSigner, urls: Urls, ws: WorkspaceState, project: ProjectState, version: VersionState) => {
  const folder = modelFolder(ws, project, version);
  const { expires, sig } = signer.sign(folder);
  return `${urls.base}${folder}signed.${expires}.${sig}/`;
};

export function findWorkspaceByUrl(store: Store, url: string): WorkspaceState {
  const ws = store.state.workspaces.find((w) => w.url === url);
  if (!ws) throw notFound('no such workspace');
  return ws;
}

export function findProject(ws: WorkspaceState, url: string): ProjectState {
  const project = ws.projects.find((p) => p.url === url);
  if (!project) throw notFound(`no project ${JSON.stringify(url)} in workspace ${ws.url}`);
  return project;
}

export function findVersion(ws: WorkspaceState, projectUrl: string, number: string): VersionState {
  const project = findProject(ws, projectUrl);
  if (!/^\d{1,9}$/.test(number))
    throw badRequest(`a version is a whole number in 1..999999999, got ${JSON.stringify(number.slice(0, 40))}`, undefined, 'version');
  const version = project.versions.find((v) => v.number === Number(number));
  if (!version) throw notFound(`no version ${number} of ${projectUrl}`);
  return version;
}

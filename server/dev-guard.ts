// What the dev and preview servers that carry the platform (`npm start`, `npm run preview`) answer outside
// /api: the demo's files to the demo's own pages, its pages alone to everyone else, and nothing that leaves
// the folders they serve. Vite serves the repository's files (the demo's modules, and through `/@fs/`
// whatever `server.fs.allow` names) and has endpoints with effects (`/__open-in-editor` opens a file in
// the user's editor); a page on another loopback port is "same-site" with the demo and, by Vite's defaults,
// would read them all, and any page could navigate the user's browser to them.
import { realpath, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, isAbsolute, join, posix, relative, resolve, sep } from 'node:path';
import { createAccessPolicy, duplicateHost, hasDuplicateHost } from './access.js';
import { HttpError, notFound, sendError } from './http.js';

export interface DevGuardOptions {
  /** The folder whose HTML files are the demo's pages: Vite's root (the preview's output folder). */
  root: string;
  /** The folders files are served from (`server.fs.allow`; the preview's output folder): no link leads out of them. */
  allow: readonly string[];
}

/** Who a request comes from: a page of this server, a page of any other origin or a typed address, or no page (a tool). */
type Asker = 'own page' | 'elsewhere' | 'tool';

/**
 * Types a browser shows as a document that runs script on the server's origin. None is one the demo loads
 * from `node_modules`, where packages ship test pages and examples (a DOM XSS in one would read the key).
 */
const DOCUMENTS = new Set(['.html', '.htm', '.xhtml', '.xht', '.shtml', '.svg', '.svgz', '.xml', '.xsl', '.xslt', '.mht', '.mhtml']);

const access = createAccessPolicy();

/**
 * Connect middleware for the paths that are not the platform's. A request of this server's own pages goes
 * on; one from anywhere else (`Sec-Fetch-Site: cross-site`, `same-site` or `none`, a foreign `Origin`,
 * or in a browser without fetch metadata a foreign `Referer`) gets the demo's pages as a top-level
 * navigation and nothing else: 403 `OriginNotAllowed`. Tools that send none of these headers (curl) get
 * the files, but not `/__open-in-editor`. For everyone, a path that resolves (links followed) outside
 * the served folders, or to a page or a folder under `node_modules`, is 404 `NotFound`, as a missing file.
 */
export function createDevGuard(options: DevGuardOptions): (req: IncomingMessage, res: ServerResponse, next: () => void) => void {
  const root = resolve(options.root);
  const allowed = Promise.all(options.allow.map((dir) => realpath(dir).catch(() => resolve(dir))));
  return (req, res, next) => {
    if (hasDuplicateHost(req)) return sendError(res, duplicateHost());
    const path = canonicalPath(req.url ?? '/');
    // Vite answers a malformed path itself.
    if (path === null) return next();
    const asker = askerOf(req);
    if (asker === 'elsewhere' ? !(isNavigation(req) && isPage(path)) : asker === 'tool' && isEditorEndpoint(path)) {
      return refuse(res);
    }
    const missing = () => sendError(res, notFound('no such file', 'the dev server serves the demo and what it loads'));
    servable(path.name.startsWith('/@fs/') ? path.name.slice('/@fs'.length) : join(root, path.name), allowed).then(
      (ok) => (ok ? next() : missing()),
      missing,
    );
  };
}

/** A request's path as the decisions read it: one name for every spelling that Vite serves as one file. */
interface CanonicalPath {
  /** Decoded once (as Vite decodes it), dot segments resolved, slashes single, no trailing slash (but `/`). */
  name: string;
  /** Whether the path as sent named a folder (a trailing slash): its index.html is a page. */
  folder: boolean;
}

/**
 * Vite serves `/@fs/…/x.json/`, `/@fs/…//x.json` and `/@fs/…/x%2Ejson` as `x.json`, and its router takes
 * `/__OPEN-IN-EDITOR` as `/__open-in-editor` (connect matches a prefix in any case): every check is made on
 * this one spelling, so that no other one skips it. Null for a path that does not decode.
 */
function canonicalPath(url: string): CanonicalPath | null {
  let decoded: string;
  try {
    // Not parsed as a URL relative to a base: `//x.json/` would be a host and the path `/`.
    const sent = url.startsWith('/') ? url.replace(/[?#][\s\S]*$/, '') : new URL(url).pathname;
    decoded = decodeURIComponent(sent);
  } catch {
    return null;
  }
  const name = posix.normalize(decoded).replace(/(?<=.)\/+$/, '');
  return { name, folder: decoded.endsWith('/') };
}

/** Vite's endpoint that opens a file in the user's editor, in any spelling its router answers. */
const isEditorEndpoint = (path: CanonicalPath): boolean => path.name.toLowerCase().startsWith('/__open-in-editor');

function askerOf(req: IncomingMessage): Asker {
  const site = req.headers['sec-fetch-site'];
  const { origin, referer } = req.headers;
  if (site !== undefined) return site === 'same-origin' && (origin === undefined || isOwn(origin, req)) ? 'own page' : 'elsewhere';
  // A browser without fetch metadata: its Origin, or on a navigation or a no-cors load its Referer.
  const page = origin ?? referer;
  if (page === undefined) return 'tool';
  return isOwn(page, req) ? 'own page' : 'elsewhere';
}

const isOwn = (text: string, req: IncomingMessage): boolean => {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host === req.headers.host && access.hostAllowed(req);
  } catch {
    return false;
  }
};

/** A top-level navigation: the browser shows the answer to the user, never to the page that linked to it. */
function isNavigation(req: IncomingMessage): boolean {
  if (req.method !== 'GET' || req.headers.origin !== undefined) return false;
  const mode = req.headers['sec-fetch-mode'];
  return mode === undefined || (mode === 'navigate' && req.headers['sec-fetch-dest'] === 'document');
}

/** One of the demo's pages: an HTML file or a folder (its index.html) of the root, not a Vite endpoint. */
function isPage(path: CanonicalPath): boolean {
  const { name } = path;
  if (name.startsWith('/@') || name.startsWith('/__') || name.toLowerCase().split('/').includes('node_modules')) return false;
  return name === '/' || extname(name) === '.html' || (path.folder && extname(name) === '');
}

/**
 * Whether the file at `path` may be served: inside the allowed folders once links are resolved, and under
 * `node_modules` neither a folder (Vite would answer its index.html) nor a document. A path that names no
 * file is Vite's to answer (its own modules, a 404); one that cannot be resolved otherwise (a file taken as
 * a folder, a loop of links, no permission) rejects, and is answered as a missing file.
 */
async function servable(path: string, allowed: Promise<string[]>): Promise<boolean> {
  let real: string;
  try {
    real = await realpath(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
  const within = (await allowed).find((dir) => isInside(real, dir));
  if (within === undefined) return false;
  const inModules = [path, real].some((p) => p.split(sep).includes('node_modules'));
  return (
    !inModules ||
    (!DOCUMENTS.has(extname(path).toLowerCase()) && !DOCUMENTS.has(extname(real).toLowerCase()) && !(await stat(real)).isDirectory())
  );
}

const isInside = (path: string, dir: string): boolean => {
  const rel = relative(dir, path);
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
};

function refuse(res: ServerResponse): void {
  res.setHeader('vary', 'Origin, Sec-Fetch-Site');
  sendError(
    res,
    new HttpError(
      403,
      "the dev server's files are served to its own pages only",
      'OriginNotAllowed',
      'open the demo at this server, or call the platform under /api',
    ),
  );
}

// Who may talk to the local platform. It listens on the user's machine, where every web page they visit can
// send it requests: a request must name this server in its `Host` (a page on attacker.example that
// rebinds its DNS name to 127.0.0.1 sends `Host: attacker.example`), and a browser's cross-origin request
// is answered with CORS grants only for loopback origins and the origins the user named.
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { HttpError } from './http.js';

export interface AccessOptions {
  /** The base URL clients use, when it is not a loopback one (a tunnel, a LAN name): its host is allowed. */
  publicUrl?: string;
  /** Origins (`https://app.example`) granted CORS besides the loopback ones. */
  allowOrigins?: readonly string[];
}

export interface AccessPolicy {
  /** Whether the request's `Host` names this server: its own address, a loopback name or address, or the public URL's host. */
  hostAllowed(req: IncomingMessage): boolean;
  /** Whether a browser page on `origin` may read the answers of the keyed routes. */
  originAllowed(origin: string, req: IncomingMessage): boolean;
  /** Whether the request comes from a page on this server's own origin (or from no page at all). */
  sameOrigin(req: IncomingMessage): boolean;
}

export function createAccessPolicy(options: AccessOptions = {}): AccessPolicy {
  const publicHost = options.publicUrl ? new URL(options.publicUrl).hostname : null;
  const origins = new Set((options.allowOrigins ?? []).map(normalizeOrigin));

  const hostAllowed = (req: IncomingMessage): boolean => {
    const hostname = hostnameOf(req.headers.host);
    if (hostname === null) return false;
    if (isLoopbackName(hostname) || hostname === publicHost) return true;
    // The address the connection came in on: `edgeseg serve --host 192.168.1.5` reached as such.
    const local = unmapped(req.socket.localAddress ?? '');
    return isIP(bare(hostname)) !== 0 && bare(hostname) === local;
  };

  const ownOrigin = (origin: URL, req: IncomingMessage) => origin.host === req.headers.host && hostAllowed(req);

  return {
    hostAllowed,
    originAllowed(origin, req) {
      const url = parseOrigin(origin);
      if (url === null) return false;
      return isLoopbackName(url.hostname) || origins.has(url.origin) || ownOrigin(url, req);
    },
    sameOrigin(req) {
      const site = req.headers['sec-fetch-site'];
      if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
      const origin = req.headers.origin;
      if (origin === undefined) return true;
      const url = parseOrigin(origin);
      return url !== null && ownOrigin(url, req);
    },
  };
}

/**
 * More than one `Host` header (Node keeps the first in `req.headers`): which one names the server is
 * ambiguous, so the request is refused whatever they say.
 */
export function hasDuplicateHost(req: IncomingMessage): boolean {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === 'host') count++;
  return count > 1;
}

export const duplicateHost = () =>
  new HttpError(400, 'the request has more than one Host header', 'MalformedRequest', 'send exactly one Host header');

/** `https://App.example:443/` → `https://app.example`; anything that is not an http(s) origin is refused. */
export function normalizeOrigin(text: string): string {
  const url = parseOrigin(text);
  if (url === null) throw new Error(`not an http(s) origin: ${JSON.stringify(text)}`);
  return url.origin;
}

function parseOrigin(text: string): URL | null {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

function hostnameOf(host: string | undefined): string | null {
  if (!host) return null;
  try {
    const url = new URL(`http://${host}`);
    // Only a host and port: `a@b`, `b/c` or `b?c` in a Host header is not a name this server has.
    return url.username || url.password || url.pathname !== '/' || url.search || url.hash ? null : url.hostname;
  } catch {
    return null;
  }
}

/** localhost, *.localhost (which resolve to loopback by RFC 6761), 127.0.0.0/8 and ::1. */
function isLoopbackName(hostname: string): boolean {
  const h = bare(hostname);
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  return h === '::1';
}

const bare = (hostname: string) =>
  hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
const unmapped = (address: string) => address.replace(/^::ffff:/i, '');

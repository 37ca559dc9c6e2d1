// A static host as a CDN serves an app: brotli or gzip for compressible types (as the browser asks), an
// ETag with `Cache-Control: no-cache` on every file (Cloudflare Pages' and Netlify's default: a returning
// visitor revalidates each file and gets 304), COOP/COEP; and a log of the bytes each answer put on the wire.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
  '.jpg': 'image/jpeg',
  '.png': 'image/png',
};
/** The types CDNs compress (Cloudflare's list has these and application/wasm; not octet-stream, not images). */
const COMPRESSIBLE = /^(text\/|application\/(json|wasm)\b)/;

export interface WireEntry {
  path: string;
  status: number;
  /** Body bytes as sent (after compression). */
  bytes: number;
  /** The file's own size. */
  size: number;
  encoding: 'br' | 'gzip' | 'identity';
  /** When the request came, ms after the first request since the last `take()` (the page's own). */
  at: number;
  /** When the answer was handed to the network (its last byte written), on the same clock. */
  done?: number;
}

export interface CompressingHost {
  url: string;
  /** Every answer since the last `take()`, in order; the log is then emptied. */
  take(): WireEntry[];
  close(): Promise<void>;
}

interface Prepared {
  body: Buffer;
  etag: string;
  type: string;
  br?: Buffer;
  gzip?: Buffer;
}

const brotli = (body: Buffer) => brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } });

/**
 * Serves `root` over HTTPS (browsers offer brotli only on HTTPS: a CDN's visitor gets it) with the
 * certificate and key given (a self-signed pair; the browser is told to accept it), at the levels a CDN
 * compresses with on the fly (brotli 5, gzip 6). Every file is read and brotli-compressed before the
 * host answers, so that no visit waits for the host's compression (a CDN keeps what it compressed).
 */
export async function startCompressingHost(root: string, tls: { cert: string; key: string }): Promise<CompressingHost> {
  const files = new Map<string, Prepared>();
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const body = await readFile(path);
    const type = TYPES[extname(path)] ?? 'application/octet-stream';
    files.set(path, {
      body,
      etag: `"${createHash('sha1').update(body).digest('base64url')}"`,
      type,
      ...(COMPRESSIBLE.test(type) ? { br: brotli(body) } : {}),
    });
  }
  let log: WireEntry[] = [];
  let start = 0;
  const record = (entry: Omit<WireEntry, 'at' | 'done'>, res: { once(event: 'finish', listener: () => void): unknown }) => {
    const now = performance.now();
    if (!log.length) start = now;
    const logged: WireEntry = { ...entry, at: now - start };
    log.push(logged);
    res.once('finish', () => (logged.done = performance.now() - start));
  };
  const server = createHttpsServer(tls, (req, res) => {
    res.setHeader('cross-origin-opener-policy', 'same-origin');
    res.setHeader('cross-origin-embedder-policy', 'require-corp');
    res.setHeader('cross-origin-resource-policy', 'same-origin');
    const pathname = new URL(req.url ?? '/', 'https://x').pathname;
    // The files' names need no decoding (Vite's and the packages' are plain).
    const path = normalize(join(root, pathname.endsWith('/') ? `${pathname}index.html` : pathname));
    const file = path.startsWith(root + sep) ? files.get(path) : undefined;
    if (!file) {
      record({ path: pathname, status: 404, bytes: 0, size: 0, encoding: 'identity' }, res);
      return void res.writeHead(404).end();
    }
    const headers: Record<string, string | number> = { 'content-type': file.type, etag: file.etag, 'cache-control': 'no-cache' };
    if (req.headers['if-none-match'] === file.etag) {
      record({ path: pathname, status: 304, bytes: 0, size: file.body.length, encoding: 'identity' }, res);
      return void res.writeHead(304, headers).end();
    }
    const accepts = String(req.headers['accept-encoding'] ?? '');
    let encoding: WireEntry['encoding'] = 'identity';
    let body = file.body;
    if (COMPRESSIBLE.test(file.type)) {
      headers.vary = 'accept-encoding';
      if (/\bbr\b/.test(accepts)) {
        file.br ??= brotli(file.body);
        [encoding, body] = ['br', file.br];
      } else if (/\bgzip\b/.test(accepts)) {
        file.gzip ??= gzipSync(file.body, { level: 6 });
        [encoding, body] = ['gzip', file.gzip];
      }
    }
    if (encoding !== 'identity') headers['content-encoding'] = encoding;
    headers['content-length'] = body.length;
    record({ path: pathname, status: 200, bytes: body.length, size: file.body.length, encoding }, res);
    res.writeHead(200, headers).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    take: () => {
      const entries = log;
      log = [];
      return entries;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

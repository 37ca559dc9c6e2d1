// Starts the local platform on loopback: `edgeseg serve`, tests, and anything that wants the routes.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../src/node/bundled-model.js';
import { restrictImageLoaders } from '../src/node/image-loaders.js';
import { createPlatformHandler, type PlatformHandler } from './handler.js';
import { seedDefault } from './seed.js';
import { loadSigningSecret, UrlSigner } from './signing.js';
import { Store } from './store.js';

/** A new workspace key: 192 random bits, URL-safe. */
export function newApiKey(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * SHA-256 of the one key that every data directory was once seeded with: a directory still holding it
 * gets a random key at its next start (the hash, so that the old key itself appears nowhere).
 */
const RETIRED_KEY_SHA256 = 'f69431f2ebdca3c23adb9611814b28d803059a1d40a32261b4761e432c15e1c0';

export interface PlatformServerOptions {
  /** Default 8787; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The data directory. Default `$EDGESEG_DATA_DIR` or `~/.local/share/edgeseg/platform`. */
  dataDir?: string;
  /**
   * The default workspace's key: set (and saved) on every start, so it replaces the key the data directory
   * had. Default: the key the data directory already has, or a random one (192 bits) when it is first seeded.
   */
  apiKey?: string;
  /** The base URL clients use where it is not a loopback one: links name it, and its host is answered. */
  publicUrl?: string;
  /** Origins granted CORS besides loopback ones (`--allow-origin`). */
  allowOrigins?: readonly string[];
  /** The trained model of the default project's version 2. Default: the bundled shapes model. */
  modelDir?: string;
  /** The sample images of the default project. Default: the bundled samples. */
  samplesDir?: string;
  log?: (line: string) => void;
  limits?: Parameters<typeof createPlatformHandler>[0]['limits'];
  /** How long the signed file URLs that the server hands out stay valid, in seconds. Default one day. */
  signedUrlTtlS?: number;
  /** Time for a client to send a request's headers; slower connections are closed (408). Default 10 s. */
  headersTimeoutMs?: number;
  /** Time for a client to send a whole request, body included. Default 120 s. */
  requestTimeoutMs?: number;
}

export interface PlatformServer {
  baseUrl: string;
  inferenceUrl: string;
  apiKey: string;
  dataDir: string;
  server: Server;
  store: Store;
  handler: PlatformHandler;
  close(): Promise<void>;
}

/**
 * What Node answers by itself (a request it cannot parse, headers too large, a request too slow to
 * arrive), in the platform's JSON error shape, so that every failure carries a code.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const response = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || response?.headersSent || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const [status, reason, type, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'RequestTimeout', 'the request did not arrive in time']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'HeadersTooLarge', 'the request headers are too large']
        : [400, 'Bad Request', 'MalformedRequest', 'the request is not well-formed HTTP'];
  const body = JSON.stringify({ error: { message, type, code: type } });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * Node's defaults let a client hold a connection with half a request for a minute (headers) or five
 * (body), checked every 30 s: a few hundred such connections starve a server. This closes them near
 * their deadline with a JSON 408, and answers what Node cannot parse with the platform's JSON errors. For
 * the platform's own server and for the dev and preview servers that mount it (`npm start`); call it
 * before the server listens.
 */
export function guardConnections(server: Server, { headersTimeoutMs = 10_000, requestTimeoutMs = 120_000 } = {}): void {
  server.headersTimeout = headersTimeoutMs;
  server.requestTimeout = requestTimeoutMs;
  // Read when the server starts listening (Node's constructor option of the same name).
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.max(
    50,
    Math.min(1000, headersTimeoutMs / 4),
  );
  // First, so that a dev server's own handler (Vite's writes a bare status line) finds the socket answered.
  server.prependListener('clientError', answerClientError);
}

export function defaultDataDir(): string {
  return process.env.EDGESEG_DATA_DIR ?? join(homedir(), '.local', 'share', 'edgeseg', 'platform');
}

/** Opens (seeding on first use) the data directory and returns the platform's listener for it. */
export async function openPlatform(
  options: Omit<PlatformServerOptions, 'port' | 'host' | 'headersTimeoutMs' | 'requestTimeoutMs'> & {
    prefix?: string;
    shareKeyWithPages?: boolean;
  } = {},
) {
  // The platform decodes images that anyone who can reach it sends: only the allow-list's libvips loaders.
  restrictImageLoaders();
  const dataDir = options.dataDir ?? defaultDataDir();
  const root = packageRoot();
  const store = await Store.open(
    dataDir,
    ({ dir }) =>
      seedDefault(dir, {
        apiKey: options.apiKey ?? newApiKey(),
        samplesDir: options.samplesDir ?? join(root, 'models', 'shapes', 'samples'),
        modelDir: options.modelDir ?? 'bundled',
        peopleSamplesDir: join(root, 'models', 'people', 'samples'),
      }),
    options.log ? { log: options.log } : {},
  );
  const workspace = store.state.workspaces[0]!;
  if (options.apiKey === undefined && createHash('sha256').update(workspace.apiKey).digest('hex') === RETIRED_KEY_SHA256) {
    await store.update(() => {
      workspace.apiKey = newApiKey();
    });
  }
  if (options.apiKey !== undefined && options.apiKey !== workspace.apiKey) {
    // Keys identify workspaces: one key for two would let either read the other.
    if (!options.apiKey.trim()) throw new Error('the API key cannot be empty');
    const holder = store.state.workspaces.find((w) => w !== workspace && w.apiKey === options.apiKey);
    if (holder) throw new Error(`that API key already belongs to workspace ${holder.url}`);
    await store.update(() => {
      workspace.apiKey = options.apiKey!;
    });
  }
  const signer = new UrlSigner(await loadSigningSecret(store.dir), options.signedUrlTtlS);
  const handler = createPlatformHandler({
    store,
    signer,
    ...(options.prefix ? { prefix: options.prefix } : {}),
    ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
    ...(options.allowOrigins ? { allowOrigins: options.allowOrigins } : {}),
    ...(options.shareKeyWithPages ? { shareKeyWithPages: true } : {}),
    ...(options.log ? { log: options.log } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
  });
  return { store, handler, apiKey: workspace.apiKey, dataDir: store.dir };
}

export async function startPlatformServer(options: PlatformServerOptions = {}): Promise<PlatformServer> {
  const { handler, apiKey, dataDir, store } = await openPlatform(options);
  // No Host is refused by the handler (a JSON 403 HostNotAllowed), like a foreign one, not by Node's bare 400.
  const server = createServer({ requireHostHeader: false }, (req, res) => handler(req, res));
  guardConnections(server, {
    ...(options.headersTimeoutMs !== undefined ? { headersTimeoutMs: options.headersTimeoutMs } : {}),
    ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 8787, options.host ?? '127.0.0.1', resolve);
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  const baseUrl = `http://${host}:${port}`;
  return {
    baseUrl,
    inferenceUrl: `${baseUrl}/infer`,
    apiKey,
    dataDir,
    server,
    store,
    handler,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await handler.close();
    },
  };
}

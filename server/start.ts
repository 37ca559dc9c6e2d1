// Starts the local platform on loopback: `edgeseg serve`, tests, and anything that wants the routes.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../src/node/bundled-model.js';
import { createPlatformHandler, type PlatformHandler } from './handler.js';
import { seedDefault } from './seed.js';
import { loadSigningSecret, UrlSigner } from './signing.js';
import { Store } from './store.js';

/** The default workspace's key when none is given (printed at start, documented in the README). */
export const DEFAULT_API_KEY = 'edgeseg-local-key';

export interface PlatformServerOptions {
  /** Default 8787; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The data directory. Default `$EDGESEG_DATA_DIR` or `~/.local/share/edgeseg/platform`. */
  dataDir?: string;
  /**
   * The default workspace's key: set (and saved) on every start, so it replaces the key the data directory
   * had. Default: the key the data directory already has, or `edgeseg-local-key` when it is first seeded.
   */
  apiKey?: string;
  /** The trained model of the default project's version 2. Default: the bundled shapes model. */
  modelDir?: string;
  /** The sample images of the default project. Default: the bundled samples. */
  samplesDir?: string;
  log?: (line: string) => void;
  limits?: Parameters<typeof createPlatformHandler>[0]['limits'];
  /** How long the signed file URLs that the server hands out stay valid, in seconds. Default one day. */
  signedUrlTtlS?: number;
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

export function defaultDataDir(): string {
  return process.env.EDGESEG_DATA_DIR ?? join(homedir(), '.local', 'share', 'edgeseg', 'platform');
}

/** Opens (seeding on first use) the data directory and returns the platform's listener for it. */
export async function openPlatform(options: Omit<PlatformServerOptions, 'port' | 'host'> & { prefix?: string; publicUrl?: string } = {}) {
  const dataDir = options.dataDir ?? defaultDataDir();
  const root = packageRoot();
  const store = await Store.open(dataDir, ({ dir }) =>
    seedDefault(dir, {
      apiKey: options.apiKey ?? DEFAULT_API_KEY,
      samplesDir: options.samplesDir ?? join(root, 'models', 'shapes', 'samples'),
      modelDir: options.modelDir ?? 'bundled',
      peopleSamplesDir: join(root, 'models', 'people', 'samples'),
    }),
  );
  const workspace = store.state.workspaces[0]!;
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
    ...(options.log ? { log: options.log } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
  });
  return { store, handler, apiKey: workspace.apiKey, dataDir: store.dir };
}

export async function startPlatformServer(options: PlatformServerOptions = {}): Promise<PlatformServer> {
  const { handler, apiKey, dataDir, store } = await openPlatform(options);
  const server = createServer((req, res) => handler(req, res));
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

// The model package on a host of its own, another origin with CORS and Cross-Origin-Resource-Policy (as a
// CDN or object store would serve it), so that the app's host may answer unknown paths with its page.
import { join } from 'node:path';
import { startStaticServer, type StaticServer } from '../fixtures/static-server.js';

export async function startModelHost(appDir: string): Promise<StaticServer & { modelUrl: string }> {
  const server = await startStaticServer(join(appDir, 'public'));
  return Object.assign(server, { modelUrl: `${server.url}/model/` });
}

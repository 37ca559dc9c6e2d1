// The model package on a host of its own, another origin with CORS and Cross-Origin-Resource-Policy (as a
// CDN or object store would serve it): the one packed-app case whose model is not on the app's own host,
// for what a cross-origin isolated page needs of such a host.
import { join } from 'node:path';
import { startStaticServer, type StaticServer } from '../fixtures/static-server.js';

export async function startModelHost(appDir: string): Promise<StaticServer & { modelUrl: string }> {
  const server = await startStaticServer(join(appDir, 'public'));
  return Object.assign(server, { modelUrl: `${server.url}/model/` });
}

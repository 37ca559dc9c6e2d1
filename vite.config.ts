// The demo: `npm start` serves it with the local platform under /api, on one cross-origin isolated
// origin (so WASM runs multi-threaded); `npm run build` writes the static site to demo-dist/.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig, type Plugin, type PreviewServer, type ViteDevServer } from 'vite';
import { openPlatform } from './server/start.js';

const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/** Mounts the local platform's request listener at /api in Vite's dev and preview servers. */
function localPlatform(): Plugin {
  const mount = async (server: ViteDevServer | PreviewServer) => {
    const platform = await openPlatform({
      prefix: '/api',
      // The demo page learns the key from /api/local-key; pages of other origins never can.
      shareKeyWithPages: true,
      // Origins besides loopback ones that may call /api, comma-separated (as `edgeseg serve --allow-origin`).
      ...(process.env.EDGESEG_ALLOW_ORIGIN ? { allowOrigins: process.env.EDGESEG_ALLOW_ORIGIN.split(',').map((o) => o.trim()).filter(Boolean) } : {}),
      dataDir: process.env.EDGESEG_DATA_DIR ?? join(import.meta.dirname, '.data', 'platform'),
      ...(process.env.EDGESEG_MODEL_DIR ? { modelDir: process.env.EDGESEG_MODEL_DIR } : {}),
    });
    server.middlewares.use((req, res, next) => platform.handler(req, res, next));
    server.httpServer?.once('close', () => void platform.handler.close());
    server.httpServer?.once('listening', () => {
      server.config.logger.info(`\n  edgeseg local platform at /api — workspace edgeseg-demo, api key ${platform.apiKey}\n  data: ${platform.dataDir}\n`);
    });
  };
  return { name: 'edgeseg-local-platform', configureServer: mount, configurePreviewServer: mount };
}

/**
 * Ships the bundled model package in the static site (`models/shapes/`), so that the built page also
 * segments where no platform answers at `/api` (any static server with COOP/COEP).
 */
function bundledModel(): Plugin {
  const dir = join(import.meta.dirname, 'models', 'shapes', 'package');
  return {
    name: 'edgeseg-bundled-model',
    apply: 'build',
    generateBundle() {
      for (const file of readdirSync(dir)) this.emitFile({ type: 'asset', fileName: `models/shapes/${file}`, source: readFileSync(join(dir, file)) });
    },
  };
}

export default defineConfig({
  root: 'demo',
  publicDir: false,
  plugins: [localPlatform(), bundledModel()],
  // The demo imports `edgeseg` as an app would; here it resolves to the source.
  resolve: { alias: { edgeseg: join(import.meta.dirname, 'src', 'index.ts') } },
  server: { headers: isolation, host: '127.0.0.1', port: 5173, fs: { allow: ['..'] } },
  preview: { headers: isolation, host: '127.0.0.1', port: 4173 },
  optimizeDeps: { exclude: ['onnxruntime-web'] },
  worker: { format: 'es' },
  build: { outDir: '../demo-dist', emptyOutDir: true, target: 'es2022' },
});

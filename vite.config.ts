// The demo: `npm start` serves it with the local platform under /api, on one cross-origin isolated
// origin (so WASM runs multi-threaded); `npm run build` writes the static site to demo-dist/.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defineConfig, type Plugin, type PreviewServer, type ViteDevServer } from 'vite';
import { Server } from 'node:http';
import { createDevGuard } from './server/dev-guard.js';
import { defaultDataDir, guardConnections, openPlatform } from './server/start.js';

const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/** Mounts the local platform's request listener at /api in Vite's dev and preview servers. */
function localPlatform(): Plugin {
  const mount = async (server: ViteDevServer | PreviewServer, files: { root: string; allow: readonly string[] }) => {
    const platform = await openPlatform({
      prefix: '/api',
      // The demo page learns the key from /api/local-key; pages of other origins never can.
      shareKeyWithPages: true,
      // Origins besides loopback ones that may call /api, comma-separated (as `edgeseg serve --allow-origin`).
      ...(process.env.EDGESEG_ALLOW_ORIGIN
        ? {
            allowOrigins: process.env.EDGESEG_ALLOW_ORIGIN.split(',')
              .map((o) => o.trim())
              .filter(Boolean),
          }
        : {}),
      // Outside the repository, which the dev server serves files of: `edgeseg serve`'s directory.
      dataDir: defaultDataDir(),
      ...(process.env.EDGESEG_MODEL_DIR ? { modelDir: process.env.EDGESEG_MODEL_DIR } : {}),
    });
    // /api is the platform's (its own Host, Origin and CORS rules); every other path is the demo's files,
    // for the demo's own pages only, and none from outside the folders served.
    const guard = createDevGuard(files);
    server.middlewares.use((req, res, next) => platform.handler(req, res, () => guard(req, res, next)));
    // The platform's defences against half-sent requests, on the server that carries it (plain HTTP; an
    // HTTP/2 server has its own session timeouts).
    if (server.httpServer instanceof Server) guardConnections(server.httpServer);
    server.httpServer?.once('close', () => void platform.handler.close());
    server.httpServer?.once('listening', () => {
      server.config.logger.info(
        `\n  edgeseg local platform at /api — workspace edgeseg-demo, api key ${platform.apiKey}\n  data: ${platform.dataDir}\n`,
      );
      if (existsSync(join(import.meta.dirname, '.data', 'platform', 'platform.json')))
        server.config.logger.warn(
          `  .data/platform (the data directory of earlier versions) is no longer used: move what you need from it to ${platform.dataDir}, then delete it (it holds keys)\n`,
        );
    });
  };
  return {
    name: 'edgeseg-local-platform',
    configureServer: (server) => mount(server, { root: server.config.root, allow: server.config.server.fs.allow }),
    configurePreviewServer: (server) => {
      const out = resolve(server.config.root, server.config.build.outDir);
      return mount(server, { root: out, allow: [out] });
    },
  };
}

/**
 * The model packages the static site carries, as the picker names them (project and version as the local
 * platform serves them): where no platform answers at `/api`, the built page segments with these (any
 * static server with COOP/COEP).
 */
const BUNDLED_MODELS = [
  { name: 'people', project: 'people', version: 1, dir: join('models', 'people', 'general') },
  { name: 'people-landscape', project: 'people', version: 2, dir: join('models', 'people', 'landscape') },
  { name: 'shapes', project: 'shapes', version: 2, dir: join('models', 'shapes', 'package') },
];

/** Copies each bundled package that exists into `models/<name>/` and lists them in `models/index.json`. */
function bundledModel(): Plugin {
  return {
    name: 'edgeseg-bundled-model',
    apply: 'build',
    generateBundle() {
      const shipped = BUNDLED_MODELS.filter((m) => existsSync(join(import.meta.dirname, m.dir, 'class_names.txt')));
      for (const model of BUNDLED_MODELS.filter((m) => !shipped.includes(m)))
        this.warn(`no package at ${model.dir}: the build does not carry the ${model.name} model`);
      for (const model of shipped) {
        const dir = join(import.meta.dirname, model.dir);
        for (const file of readdirSync(dir, { withFileTypes: true })) {
          if (file.isFile())
            this.emitFile({ type: 'asset', fileName: `models/${model.name}/${file.name}`, source: readFileSync(join(dir, file.name)) });
        }
      }
      const index = shipped.map(({ name, project, version }) => ({ name, project, version, path: `${name}/` }));
      this.emitFile({ type: 'asset', fileName: 'models/index.json', source: JSON.stringify(index, null, 2) });
    },
  };
}

export default defineConfig({
  root: 'demo',
  publicDir: false,
  plugins: [localPlatform(), bundledModel()],
  // The demo imports `edgeseg` as an app would; here it resolves to the source.
  resolve: { alias: { edgeseg: join(import.meta.dirname, 'src', 'index.ts') } },
  server: {
    headers: isolation,
    host: '127.0.0.1',
    port: 5173,
    // No CORS from Vite: /api answers with the platform's own grants, and the demo's files are for its own
    // pages (Vite's default grants every localhost origin).
    cors: false,
    // The demo and what it loads from outside demo/: edgeseg's source, its worker, onnxruntime-web.
    fs: {
      allow: ['demo', 'src', 'workers', 'node_modules'].map((dir) => join(import.meta.dirname, dir)),
      deny: ['.env', '.env.*', '*.{crt,pem,key}', '**/.git/**', '**/.data/**', '**/platform.json', '**/signing-key'],
    },
  },
  preview: { headers: isolation, host: '127.0.0.1', port: 4173, cors: false },
  optimizeDeps: { exclude: ['onnxruntime-web'] },
  worker: { format: 'es' },
  build: { outDir: '../demo-dist', emptyOutDir: true, target: 'es2022' },
});

// Vite 5, 6 and 7, dev server and production build, on a fresh app that imports the packed edgeseg with
// no Vite option for it (COOP/COEP, for threads, are the one setting). Their dev servers pre-bundle
// edgeseg into node_modules/.vite/deps/ without its runtime files: the runtime finds them in the package's
// folder, which the dev server serves. Vite 8 (the repository's own) is vite-dev.test.ts and
// vite-build.test.ts. Chromium: the three engines run the same runtime in those files.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { startStaticServer, type StaticServer } from '../fixtures/static-server.js';
import { importFromApp, packedApp } from './bundler-apps.js';
import { expectCliPayload, expectRuntimeFilesCopied } from './expect-payload.js';
import { closeBrowser, runPage } from './run-page.js';
import { makeToolApp } from './tool-app.js';
import { recordingLogger } from './warnings.js';

const { cliPayload, tarball } = inject('packed');
const ISOLATION = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

/** The part of Vite's API that these tests use, the same from Vite 5 to 7. */
interface ViteApi {
  createServer(config: object): Promise<{ listen(): Promise<unknown>; close(): Promise<void>; resolvedUrls: { local: string[] } | null }>;
  build(config: object): Promise<unknown>;
}

afterAll(() => closeBrowser());

describe.each(['5.4.21', '6.4.6', '7.3.8'])('Vite %s', (version) => {
  let appDir: string;
  let vite: ViteApi;
  beforeAll(async () => {
    appDir = makeToolApp({ name: `vite${version.split('.')[0]}`, dependencies: { vite: version }, tarball, ...packedApp() });
    vite = await importFromApp<ViteApi>(appDir, 'node_modules/vite/dist/node/index.js');
  });
  afterAll(() => rmSync(appDir, { recursive: true, force: true }));

  describe('dev server', () => {
    const { logger, warnings } = recordingLogger();
    let server: Awaited<ReturnType<ViteApi['createServer']>>;
    let url: string;
    beforeAll(async () => {
      server = await vite.createServer({
        root: appDir,
        configFile: false,
        customLogger: logger,
        logLevel: 'warn',
        server: { host: '127.0.0.1', port: 0, headers: ISOLATION },
      });
      await server.listen();
      url = server.resolvedUrls!.local[0]!;
    });
    afterAll(() => server?.close());

    test("the page segments on two WASM threads with no optimizeDeps option: the command line's payload; Vite pre-bundled edgeseg and warned of no missing file", async () => {
      const result = await runPage(`${url}?threads=2`);
      expectCliPayload(result, cliPayload);
      expect(result).toMatchObject({ isolated: true, backend: 'wasm', numThreads: 2, fallbacks: [] });
      expect(existsSync(join(appDir, 'node_modules', '.vite', 'deps', 'edgeseg.js'))).toBe(true);
      expect(warnings).toEqual([]);
    });

    test('a workerUrl that the dev server answers with its page: RUNTIME_FILE_MISSING naming the URL and the fix', async () => {
      const result = await runPage(`${url}?workerUrl=/gone/segment-worker.js`);
      expect(result.error?.message, JSON.stringify({ ...result, payload: undefined })).toContain(
        `wasm: [RUNTIME_FILE_MISSING] edgeseg's worker script at ${url}gone/segment-worker.js answered an HTML page`,
      );
      expect(result.error?.message).toContain('point `workerUrl` at them');
      expectCliPayload(result, cliPayload);
    });
  });

  describe('production build', () => {
    const { logger, warnings } = recordingLogger();
    let site: StaticServer;
    beforeAll(async () => {
      await vite.build({
        root: appDir,
        configFile: false,
        customLogger: logger,
        logLevel: 'warn',
        build: { outDir: 'out', emptyOutDir: true },
      });
      site = await startStaticServer(join(appDir, 'out'), { isolate: true, spaFallback: true });
    });
    afterAll(() => site?.close());

    test("the build carries the runtime files as shipped, prints no warning, and its page segments on two threads: the command line's payload", async () => {
      expectRuntimeFilesCopied(join(appDir, 'out'), appDir);
      expect(warnings).toEqual([]);
      const result = await runPage(`${site.url}/?threads=2`);
      expectCliPayload(result, cliPayload);
      expect(result).toMatchObject({ isolated: true, backend: 'wasm', numThreads: 2, fallbacks: [] });
    });
  });
});

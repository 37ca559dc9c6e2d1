// Vite's dev server on an app that imports the packed edgeseg, with no Vite option for it: Vite pre-bundles
// edgeseg, and the worker and onnxruntime-web's files must still be found. COOP/COEP are the one setting
// (server.headers), as the README says, for threads.
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { expectCliPayload } from './expect-payload.js';
import { startModelHost } from './model-host.js';
import { closeBrowser, runPage } from './run-page.js';
import { recordingLogger } from './warnings.js';

const { appDir, cliPayload } = inject('packed');
const { logger, warnings } = recordingLogger();
let server: ViteDevServer;
let url: string;
let models: Awaited<ReturnType<typeof startModelHost>>;
const page = (query = '') => runPage(`${url}?model=${encodeURIComponent(models.modelUrl)}${query}`);

beforeAll(async () => {
  server = await createServer({
    root: appDir,
    configFile: false,
    customLogger: logger,
    logLevel: 'warn',
    server: { host: '127.0.0.1', port: 0, headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } },
  });
  await server.listen();
  url = server.resolvedUrls!.local[0]!;
  models = await startModelHost(appDir);
});
afterAll(async () => {
  await closeBrowser();
  await server?.close();
  await models?.close();
});

describe('edgeseg under the Vite dev server', () => {
  test('the page segments on two WASM threads: the command line\'s payload', async () => {
    const result = await page('&threads=2');
    expectCliPayload(result, cliPayload);
    expect(result).toMatchObject({ isolated: true, backend: 'wasm', numThreads: 2, fallbacks: [] });
    // Pre-bundled, as Vite does with every dependency: the case where relative URLs used to break.
    expect(Object.keys(server.environments.client.depsOptimizer?.metadata.optimized ?? {})).toContain('edgeseg');
  });

  test('a workerUrl that the dev server answers with its page: RUNTIME_FILE_MISSING naming the URL, and the page still segments', async () => {
    const result = await page('&workerUrl=/gone/segment-worker.js');
    expect(result.error!.message).toContain(`wasm: [RUNTIME_FILE_MISSING] edgeseg's worker script at ${url}gone/segment-worker.js answered an HTML page`);
    expectCliPayload(result, cliPayload);
  });

  test('wasmPaths on a host that answers 404: RUNTIME_FILE_MISSING naming the module, and the page still segments', async () => {
    const result = await page(`&wasmPaths=${encodeURIComponent(`${models.url}/nowhere/`)}`);
    expect(result.error!.message).toContain(`wasm: [RUNTIME_FILE_MISSING] onnxruntime-web's ES module at ${models.url}/nowhere/ort.wasm.bundle.min.mjs answered 404`);
    expectCliPayload(result, cliPayload);
  });

  test('Vite printed no warning', () => {
    expect(warnings).toEqual([]);
  });
});

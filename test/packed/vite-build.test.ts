// Vite's production build of an app that imports the packed edgeseg, with no Vite option for it, hosted
// on a static host that answers unknown paths with index.html and sends COOP/COEP.
import { join } from 'node:path';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { startStaticServer, type StaticServer } from '../fixtures/static-server.js';
import { expectCliPayload, expectRuntimeFilesCopied } from './expect-payload.js';
import { startModelHost } from './model-host.js';
import { closeBrowser, runPage } from './run-page.js';
import { recordingLogger } from './warnings.js';

const { appDir, cliPayload } = inject('packed');
const OUT_DIR = join(appDir, 'out-vite');
const { logger, warnings } = recordingLogger();
let site: StaticServer;
let models: Awaited<ReturnType<typeof startModelHost>>;
const page = (query = '') => runPage(`${site.url}/?model=${encodeURIComponent(models.modelUrl)}${query}`);

beforeAll(async () => {
  await build({ root: appDir, configFile: false, customLogger: logger, logLevel: 'warn', build: { outDir: OUT_DIR, emptyOutDir: true } });
  site = await startStaticServer(OUT_DIR, { isolate: true, spaFallback: true });
  models = await startModelHost(appDir);
});
afterAll(async () => {
  await closeBrowser();
  await site?.close();
  await models?.close();
});

describe('edgeseg in a Vite production build', () => {
  test('the build prints no warning', () => {
    expect(warnings).toEqual([]);
  });

  test('the build carries the worker and onnxruntime-web\'s files (WebGPU\'s too) as they were shipped', () => {
    expectRuntimeFilesCopied(OUT_DIR, appDir);
  });

  test('the built page segments on two WASM threads: the command line\'s payload', async () => {
    const result = await page('&threads=2');
    expectCliPayload(result, cliPayload);
    expect(result).toMatchObject({ isolated: true, backend: 'wasm', numThreads: 2, fallbacks: [] });
  });

  test('a workerUrl that the host answers with its page: RUNTIME_FILE_MISSING naming the URL, and the page still segments', async () => {
    const result = await page('&workerUrl=/gone/segment-worker.js');
    expect(result.error).toMatchObject({ code: 'NO_BACKEND' });
    expect(result.error!.message).toContain(`wasm: [RUNTIME_FILE_MISSING] edgeseg's worker script at ${site.url}/gone/segment-worker.js answered an HTML page`);
    expectCliPayload(result, cliPayload);
  });
});

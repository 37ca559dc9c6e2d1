// Vite's production build of an app that imports the packed edgeseg, with no Vite option for it, hosted
// on a static host that answers unknown paths with index.html and sends COOP/COEP, the model among the
// app's own static files (public/model/); built once, run in each engine.
import { join } from 'node:path';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { ENGINES } from '../engines/index.js';
import { startStaticServer, type StaticServer } from '../fixtures/static-server.js';
import { expectCliPayload, expectRuntimeFilesCopied, twoThreads } from './expect-payload.js';
import { closeBrowser, runPage } from './run-page.js';
import { recordingLogger } from './warnings.js';

const { appDir, cliPayload } = inject('packed');
const OUT_DIR = join(appDir, 'out-vite');
const { logger, warnings } = recordingLogger();
let site: StaticServer;

beforeAll(async () => {
  await build({ root: appDir, configFile: false, customLogger: logger, logLevel: 'warn', build: { outDir: OUT_DIR, emptyOutDir: true } });
  site = await startStaticServer(OUT_DIR, { isolate: true, spaFallback: true });
});
afterAll(async () => {
  await closeBrowser();
  await site?.close();
});

describe('edgeseg in a Vite production build', () => {
  test('the build prints no warning', () => {
    expect(warnings).toEqual([]);
  });

  test("the build carries the worker and onnxruntime-web's files (WebGPU's too) as they were shipped", () => {
    expectRuntimeFilesCopied(OUT_DIR, appDir);
  });

  describe.each(ENGINES)('in %s', (engine) => {
    const page = (query = '') => runPage(`${site.url}/?${query}`, { engine });
    afterAll(() => closeBrowser(engine));

    test("the built page segments (two WASM threads where the engine has shared memory) with the model from the app's host: the command line's payload", async () => {
      const { query, expected } = twoThreads(engine);
      const result = await page(query);
      expectCliPayload(result, cliPayload);
      expect(result).toMatchObject(expected);
    });

    test('a workerUrl that the host answers with its page: RUNTIME_FILE_MISSING naming the URL, and the page still segments', async () => {
      const result = await page('workerUrl=/gone/segment-worker.js');
      expect(result.error).toMatchObject({ code: 'NO_BACKEND' });
      expect(result.error?.message, JSON.stringify({ ...result, payload: undefined })).toContain(
        `wasm: [RUNTIME_FILE_MISSING] edgeseg's worker script at ${site.url}/gone/segment-worker.js answered an HTML page`,
      );
      expectCliPayload(result, cliPayload);
    });
  });
});

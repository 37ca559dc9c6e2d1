// No bundler: edgeseg's browser build copied as a folder (as a CDN serves it) and imported by a page's
// <script type="module"> through an import map; the worker and onnxruntime-web's files are found beside it,
// the model among the site's own files. One site, run in each engine; WebGPU in Chromium (the engine with
// an adapter here), and what the others do when a page asks for it.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { ENGINES } from '../engines/index.js';
import { SUPPORT } from '../engines/support.js';
import { startStaticServer, type StaticServer } from '../fixtures/static-server.js';
import { anyString, stringContaining } from '../helpers/matchers.js';
import { expectCliPayload, twoThreads } from './expect-payload.js';
import { startModelHost } from './model-host.js';
import { closeBrowser, runPage } from './run-page.js';

const { appDir, cliPayload } = inject('packed');
const site = join(appDir, 'out-no-bundler');
let isolated: StaticServer;
let plain: StaticServer;
let models: Awaited<ReturnType<typeof startModelHost>>;

beforeAll(async () => {
  mkdirSync(site, { recursive: true });
  cpSync(join(appDir, 'index.nobundler.html'), join(site, 'index.html'));
  cpSync(join(appDir, 'main.js'), join(site, 'main.js'));
  cpSync(join(appDir, 'public'), site, { recursive: true });
  cpSync(join(appDir, 'node_modules', 'edgeseg', 'dist', 'browser'), join(site, 'edgeseg'), { recursive: true });
  // onnxruntime-web's modules without their binaries: a WASM path that is half there.
  mkdirSync(join(site, 'half'));
  for (const file of ['ort.wasm.bundle.min.mjs', 'ort.webgpu.bundle.min.mjs'])
    cpSync(join(site, 'edgeseg', file), join(site, 'half', file));
  // The WASM build's files alone: WebGPU's are missing there.
  mkdirSync(join(site, 'wasm-only'));
  for (const file of ['ort.wasm.bundle.min.mjs', 'ort-wasm-simd-threaded.wasm'])
    cpSync(join(site, 'edgeseg', file), join(site, 'wasm-only', file));
  // WASM's binary cut short, and compressed by a build step that the host then sends without its
  // Content-Encoding: there, but not as shipped.
  const wasm = readFileSync(join(site, 'edgeseg', 'ort-wasm-simd-threaded.wasm'));
  for (const [folder, binary] of [
    ['cut', wasm.subarray(0, wasm.length >> 1)],
    ['gzipped', gzipSync(wasm)],
  ] as const) {
    mkdirSync(join(site, folder));
    cpSync(join(site, 'edgeseg', 'ort.wasm.bundle.min.mjs'), join(site, folder, 'ort.wasm.bundle.min.mjs'));
    writeFileSync(join(site, folder, 'ort-wasm-simd-threaded.wasm'), binary);
  }
  // WASM's module cut short.
  mkdirSync(join(site, 'cut-module'));
  const module = readFileSync(join(site, 'edgeseg', 'ort.wasm.bundle.min.mjs'));
  writeFileSync(join(site, 'cut-module', 'ort.wasm.bundle.min.mjs'), module.subarray(0, module.length >> 1));
  cpSync(join(site, 'edgeseg', 'ort-wasm-simd-threaded.wasm'), join(site, 'cut-module', 'ort-wasm-simd-threaded.wasm'));
  // A static host set up for single-page apps: a path it lacks answers index.html.
  isolated = await startStaticServer(site, { isolate: true, spaFallback: true });
  plain = await startStaticServer(site, { spaFallback: true });
  models = await startModelHost(appDir);
});
afterAll(async () => {
  await closeBrowser();
  await isolated?.close();
  await plain?.close();
  await models?.close();
});

describe('edgeseg without a bundler', () => {
  describe.each(ENGINES)('in %s', (engine) => {
    const page = (server: StaticServer, query = '', webgpu = false) => runPage(`${server.url}/?${query}`, { engine, webgpu });
    afterAll(() => closeBrowser(engine));

    test("a cross-origin isolated page segments (two WASM threads where the engine has shared memory) with the model from its own host: the command line's payload", async () => {
      const { query, expected } = twoThreads(engine);
      const result = await page(isolated, query);
      expectCliPayload(result, cliPayload);
      expect(result).toMatchObject(expected);
    });

    test('the model from another origin that sends CORS and Cross-Origin-Resource-Policy, on a cross-origin isolated page: the same payload', async () => {
      const result = await page(isolated, `model=${encodeURIComponent(models.modelUrl)}`);
      expectCliPayload(result, cliPayload);
      expect(result).toMatchObject({ isolated: true, backend: 'wasm' });
      expect(result.error).toBeUndefined();
    });

    test.runIf(SUPPORT[engine].webgpu)(
      "WebGPU, where the browser has an adapter: onnxruntime-web's WebGPU build found beside the entry too",
      async () => {
        const result = await page(isolated, 'backends=webgpu', true);
        expectCliPayload(result, cliPayload);
        expect(result).toMatchObject({ backend: 'webgpu', fallbacks: [] });
      },
    );

    test.runIf(SUPPORT[engine].webgpu)(
      "WebGPU's files missing where wasmPaths says: RUNTIME_FILE_MISSING in fallbacks, and the next backend (WASM) runs",
      async () => {
        const result = await page(isolated, 'backends=webgpu,wasm&wasmPaths=/wasm-only/', true);
        expectCliPayload(result, cliPayload);
        expect(result.error).toBeUndefined();
        expect(result.backend).toBe('wasm');
        expect(result.fallbacks).toEqual([
          {
            backend: 'webgpu',
            code: 'RUNTIME_FILE_MISSING',
            message: `onnxruntime-web's ES module at ${isolated.url}/wasm-only/ort.jspi.bundle.min.mjs answered an HTML page (often a single-page-app fallback for a path the host lacks); serve edgeseg's browser files (node_modules/edgeseg/dist/browser/, or \`npx edgeseg copy-runtime <folder>\`) there, or point \`wasmPaths\` at them`,
          },
        ]);
      },
    );

    test.skipIf(SUPPORT[engine].webgpu)(
      'no WebGPU in this engine: a page that asks for webgpu, then wasm, gets BACKEND_UNAVAILABLE in fallbacks and runs WASM',
      async () => {
        const result = await page(isolated, 'backends=webgpu,wasm');
        expectCliPayload(result, cliPayload);
        expect(result.error).toBeUndefined();
        expect(result.backend).toBe('wasm');
        expect(result.fallbacks?.filter((f) => f.backend === 'webgpu')).toEqual([
          { backend: 'webgpu', code: 'BACKEND_UNAVAILABLE', message: anyString() },
        ]);
      },
    );

    test('a page that is not cross-origin isolated runs one thread and says so (NOT_ISOLATED)', async () => {
      const result = await page(plain);
      expectCliPayload(result, cliPayload);
      expect(result).toMatchObject({ isolated: false, backend: 'wasm', numThreads: 1 });
      expect(result.fallbacks).toEqual([{ backend: 'wasm', code: 'NOT_ISOLATED', message: stringContaining('COOP/COEP') }]);
    });

    test('wasmPaths where the host answers its SPA page: RUNTIME_FILE_MISSING naming the module, and the page still segments', async () => {
      const result = await page(isolated, 'wasmPaths=/nowhere/');
      expect(result.error).toMatchObject({ code: 'NO_BACKEND' });
      expect(result.error?.message, JSON.stringify({ ...result, payload: undefined })).toContain(
        `wasm: [RUNTIME_FILE_MISSING] onnxruntime-web's ES module at ${isolated.url}/nowhere/ort.wasm.bundle.min.mjs answered an HTML page`,
      );
      expectCliPayload(result, cliPayload);
    });

    test('wasmPaths with the module but no binary: RUNTIME_FILE_MISSING naming the binary', async () => {
      const result = await page(isolated, 'wasmPaths=/half/');
      expect(result.error?.message, JSON.stringify({ ...result, payload: undefined })).toContain(
        `wasm: [RUNTIME_FILE_MISSING] onnxruntime-web's WASM binary at ${isolated.url}/half/ort-wasm-simd-threaded.wasm answered an HTML page`,
      );
      expectCliPayload(result, cliPayload);
    });

    test.each([
      ['cut', `is 7119948 bytes, not the 14239897 bytes of the file edgeseg ships (cut short, or another version's file)`],
      ['gzipped', 'is gzip-compressed but was sent without `Content-Encoding: gzip`, so the browser did not inflate it'],
    ])(
      'wasmPaths whose binary is there but not as shipped (%s): RUNTIME_FILE_INVALID naming it and the fix, not a hang or a bare CompileError',
      async (folder, what) => {
        const result = await page(isolated, `wasmPaths=/${folder}/`);
        expect(result.error?.message, JSON.stringify({ ...result, payload: undefined })).toContain(
          `wasm: [RUNTIME_FILE_INVALID] onnxruntime-web's WASM binary at ${isolated.url}/${folder}/ort-wasm-simd-threaded.wasm ${what}; serve it byte for byte as edgeseg ships it`,
        );
        expectCliPayload(result, cliPayload);
      },
    );

    test("wasmPaths whose module is cut short: RUNTIME_FILE_INVALID naming the module and the engine's reason", async () => {
      const result = await page(isolated, 'wasmPaths=/cut-module/');
      const message = result.error?.message ?? '';
      const prefix = `wasm: [RUNTIME_FILE_INVALID] onnxruntime-web's ES module at ${isolated.url}/cut-module/ort.wasm.bundle.min.mjs did not load as an ES module (`;
      expect(message, JSON.stringify({ ...result, payload: undefined })).toContain(prefix);
      expect(message.slice(message.indexOf(prefix))).toMatch(/\): cut short, or rewritten\?; serve it byte for byte as edgeseg ships it/);
      expectCliPayload(result, cliPayload);
    });
  });
});

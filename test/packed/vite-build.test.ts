// Vite's production build of an app that imports the packed edgeseg, with no Vite option for it, hosted
// on a static host that answers unknown paths with index.html and sends COOP/COEP, the model among the
// app's own static files (public/model/); built once, run in each engine. Every file of the build fits
// Cloudflare's 25 MiB, WebGPU's two builds (JSPI, and asyncify for engines without JSPI) give the
// command line's mask, and the same app on `edgeseg/wasm` carries no WebGPU file.
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { ENGINES } from '../engines/index.js';
import { startStaticServer, type StaticServer } from '../fixtures/static-server.js';
import { ORT_FILE_NAMES } from '../../src/runtime/ort-file-names.js';
import { builtFiles, expectCliPayload, expectRuntimeFilesCopied, INLINE_PEOPLE, twoThreads } from './expect-payload.js';
import { anyString, stringContaining, stringMatching } from '../helpers/matchers.js';
import { closeBrowser, runPage } from './run-page.js';
import { recordingLogger } from './warnings.js';

const { appDir, cliPayload } = inject('packed');
const OUT_DIR = join(appDir, 'out-vite');
// The same app, importing `edgeseg/wasm`.
const WASM_APP = join(appDir, 'wasm-app');
const WASM_OUT = join(appDir, 'out-vite-wasm');
/** Cloudflare Pages' and Workers' limit on one static file. */
const CLOUDFLARE_LIMIT = 25 * 1024 * 1024;
const { logger, warnings } = recordingLogger();
let site: StaticServer;
let wasmSite: StaticServer;

beforeAll(async () => {
  await build({ root: appDir, configFile: false, customLogger: logger, logLevel: 'warn', build: { outDir: OUT_DIR, emptyOutDir: true } });
  mkdirSync(WASM_APP, { recursive: true });
  writeFileSync(join(WASM_APP, 'index.html'), readFileSync(join(appDir, 'index.html')));
  writeFileSync(
    join(WASM_APP, 'main.js'),
    readFileSync(join(appDir, 'main.js'), 'utf8').replace("from 'edgeseg';", "from 'edgeseg/wasm';"),
  );
  await build({
    root: WASM_APP,
    publicDir: join(appDir, 'public'),
    configFile: false,
    customLogger: logger,
    logLevel: 'warn',
    build: { outDir: WASM_OUT, emptyOutDir: true },
  });
  site = await startStaticServer(OUT_DIR, { isolate: true, spaFallback: true });
  wasmSite = await startStaticServer(WASM_OUT, { isolate: true, spaFallback: true });
});
afterAll(async () => {
  await closeBrowser();
  await site?.close();
  await wasmSite?.close();
});

describe('edgeseg in a Vite production build', () => {
  test('the build prints no warning', () => {
    expect(warnings).toEqual([]);
  });

  test("the build carries the worker and onnxruntime-web's files (WebGPU's too) as they were shipped", () => {
    expectRuntimeFilesCopied(OUT_DIR, appDir);
  });

  test("the build carries no bundled model: the app's model folder is its own", () => {
    const files = builtFiles(OUT_DIR);
    expect(files.filter((path) => path.endsWith('.onnx')).map((path) => relative(OUT_DIR, path))).toEqual(['model/weights.onnx']);
    // Nor createVideoEffect's default model, which is inline in a module of its own.
    expect(files.filter((path) => readFileSync(path, 'latin1').includes(INLINE_PEOPLE))).toEqual([]);
  });

  test('no file of the build is over 25 MiB (Cloudflare Pages and Workers refuse one)', () => {
    const sizes = builtFiles(OUT_DIR).map((path) => ({ path, bytes: statSync(path).size }));
    expect(sizes.filter((f) => f.bytes > CLOUDFLARE_LIMIT)).toEqual([]);
    // The largest is the JSPI binary: the asyncify one ships compressed.
    expect(Math.max(...sizes.map((f) => f.bytes))).toBe(ORT_FILE_NAMES['webgpu-jspi'].bytes);
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

    test('with the default backends (WebGPU first, and no adapter here): the page asks the host for each file once, and for no runtime file of a backend it does not run', async () => {
      const from = site.requests().length;
      const { query, expected } = twoThreads(engine);
      const result = await page(`backends=default&${query}`);
      expectCliPayload(result, cliPayload);
      expect(result).toMatchObject({ isolated: true, backend: 'wasm', numThreads: expected.numThreads });
      expect(result.fallbacks).toContainEqual({ backend: 'webgpu', code: 'BACKEND_UNAVAILABLE', message: anyString() });
      expect(askedOnce(site.requests().slice(from), expected.numThreads!)).toEqual([
        'ort-wasm-simd-threaded.wasm',
        'ort.wasm.bundle.min.mjs',
        'segment-worker.js',
      ]);
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

  describe("WebGPU in Chromium (SwiftShader): both of onnxruntime-web's WebGPU builds give the command line's payload", () => {
    afterAll(() => closeBrowser('chromium'));
    const binaries = (from: number) =>
      site
        .requests()
        .slice(from)
        .filter((path) => /\.wasm(\.gz)?$|\.gz$/.test(path));

    test('with JSPI (Chromium): the JSPI build, its binary fetched as it is; with the default backends, no file of the WASM build', async () => {
      const from = site.requests().length;
      const result = await runPage(`${site.url}/?backends=default&threads=2`, { webgpu: true });
      expectCliPayload(result, cliPayload);
      expect(result).toMatchObject({ isolated: true, backend: 'webgpu', fallbacks: [] });
      expect(binaries(from)).toEqual([stringMatching(/\/ort-wasm-simd-threaded\.jspi-[\w-]+\.wasm$/)]);
      expect(askedOnce(site.requests().slice(from), 2)).toEqual([
        'ort-wasm-simd-threaded.jspi.wasm',
        'ort.jspi.bundle.min.mjs',
        'segment-worker.js',
      ]);
    });

    test('without JSPI (as Safari 26): the asyncify build, its gzip-compressed binary inflated by the worker', async () => {
      const from = site.requests().length;
      const result = await runPage(`${site.url}/?backends=webgpu&threads=2&noJspi`, { webgpu: true });
      expectCliPayload(result, cliPayload);
      expect(result).toMatchObject({ isolated: true, backend: 'webgpu', fallbacks: [] });
      expect(binaries(from)).toEqual([stringMatching(/\/ort-wasm-simd-threaded\.asyncify\.wasm-[\w-]+\.gz$/)]);
    });
  });
});

/**
 * The runtime files among the paths a page asked the host for (the browser's own favicon aside), by their
 * names before Vite hashed them, after checking that each path was asked for once: onnxruntime-web's module
 * excepted, which each of its `threads` loads again as its worker script (a host that lets browsers cache
 * it answers those from the cache).
 */
function askedOnce(paths: string[], threads: number): string[] {
  const counts = new Map<string, number>();
  for (const path of paths.filter((p) => p !== '/favicon.ico')) counts.set(path, (counts.get(path) ?? 0) + 1);
  for (const [path, count] of counts) expect(count, path).toBe(/\/ort\.[\w.-]+\.mjs$/.test(path) ? threads : 1);
  return [...counts.keys()]
    .map((path) => path.split('/').pop()!)
    .filter((name) => name.startsWith('segment-worker') || name.startsWith('ort'))
    .map((name) => name.replace(/-[\w-]{8}(\.\w+)$/, '$1'))
    .sort();
}

describe("the same app on edgeseg/wasm: WebGPU's runtime left out", () => {
  const webgpuFiles = [ORT_FILE_NAMES['webgpu-jspi'], ORT_FILE_NAMES['webgpu-asyncify']].flatMap((f) => [f.module, f.binary]);

  test("the build carries WASM's runtime and none of WebGPU's files", () => {
    const shipped = join(appDir, 'node_modules', 'edgeseg', 'dist', 'browser');
    const outputs = builtFiles(WASM_OUT).map((path) => readFileSync(path));
    for (const name of webgpuFiles) {
      const bytes = readFileSync(join(shipped, name));
      expect(
        outputs.some((out) => out.equals(bytes)),
        `${name} in ${WASM_OUT}`,
      ).toBe(false);
    }
    const wasm = readFileSync(join(shipped, ORT_FILE_NAMES.wasm.binary));
    expect(outputs.some((out) => out.equals(wasm))).toBe(true);
    // The full build carries the same WASM files and WebGPU's on top.
    const total = (dir: string) => builtFiles(dir).reduce((sum, path) => sum + statSync(path).size, 0);
    expect(total(OUT_DIR) - total(WASM_OUT)).toBeGreaterThan(ORT_FILE_NAMES['webgpu-jspi'].bytes);
  });

  test("with the default backends, the page tries no WebGPU and segments with two WASM threads: the command line's payload", async () => {
    const result = await runPage(`${wasmSite.url}/?backends=default&threads=2`);
    expectCliPayload(result, cliPayload);
    expect(result).toMatchObject({ isolated: true, backend: 'wasm', numThreads: 2, fallbacks: [] });
  });

  test('a page that asks for webgpu first: BACKEND_UNAVAILABLE naming edgeseg/wasm, then WASM', async () => {
    const result = await runPage(`${wasmSite.url}/?backends=webgpu,wasm&threads=2`, { webgpu: true });
    expectCliPayload(result, cliPayload);
    expect(result.backend).toBe('wasm');
    expect(result.fallbacks).toEqual([
      {
        backend: 'webgpu',
        code: 'BACKEND_UNAVAILABLE',
        message: stringContaining("this build (edgeseg/wasm) leaves onnxruntime-web's WebGPU runtime out"),
      },
    ]);
  });
});

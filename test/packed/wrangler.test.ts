// A Vite app on the packed edgeseg, built and served by Cloudflare's own local server (`wrangler dev`,
// static assets with the single-page-app fallback, COOP/COEP from a `_headers` file, as docs/frameworks.md
// recommends for Cloudflare Pages and Workers). wrangler refuses to serve a folder holding a file over
// 25 MiB ("Asset too large"), as Cloudflare refuses it at deploy: the build must have none, with WebGPU
// in it. The page's mask is the command line's on WASM and on both WebGPU builds (SwiftShader).
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { expectCliPayload } from './expect-payload.js';
import { freePort, MAIN_JS, makeFrameworkApp, runTool, startTool, type RunningServer } from './framework-app.js';
import { closeBrowser, runPage } from './run-page.js';

const packed = inject('packed');
const VITE = 'vite/bin/vite.js';
const WRANGLER = 'wrangler/bin/wrangler.js';
/** Cloudflare Pages' and Workers' limit on one static file. */
const LIMIT = 25 * 1024 * 1024;
/** No telemetry; logs in the app's folder. */
const env = (appDir: string) => ({ WRANGLER_SEND_METRICS: 'false', WRANGLER_LOG_PATH: join(appDir, 'wrangler-logs') });

/** wrangler's configuration: the folder as static assets, a page for a path that is no file, a date the installed workerd knows. */
const config = (directory: string) =>
  `{
  "name": "edgeseg-app",
  "compatibility_date": "2026-04-01",
  "assets": { "directory": "${directory}", "not_found_handling": "single-page-application" }
}
`;

let appDir: string;
let server: RunningServer | undefined;

beforeAll(async () => {
  appDir = makeFrameworkApp(packed, 'viteWrangler', {
    'index.html': `<!doctype html>
<html>
  <head><meta charset="utf-8" /><title>edgeseg on wrangler</title></head>
  <body><p id="status">loading</p><script type="module" src="./main.js"></script></body>
</html>
`,
    'main.js': MAIN_JS,
    'public/_headers': '/*\n  Cross-Origin-Opener-Policy: same-origin\n  Cross-Origin-Embedder-Policy: require-corp\n',
    'wrangler.jsonc': config('./dist'),
  });
  await runTool(appDir, VITE, ['build']);
  const [port, inspector] = [await freePort(), await freePort()];
  server = await startTool(
    appDir,
    WRANGLER,
    ['dev', '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', String(inspector)],
    `http://127.0.0.1:${port}/`,
    { env: env(appDir) },
  );
}, 600_000);
afterAll(async () => {
  await closeBrowser();
  await server?.stop();
  if (appDir) rmSync(appDir, { recursive: true, force: true });
});

describe('a Vite build of edgeseg served by wrangler dev (Cloudflare static assets)', () => {
  test('every file of the build is within 25 MiB', () => {
    const sizes = readdirSync(join(appDir, 'dist'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => ({ name: e.name, bytes: statSync(join(e.parentPath, e.name)).size }));
    expect(sizes.filter((f) => f.bytes > LIMIT)).toEqual([]);
    expect(sizes.some((f) => f.name.startsWith('ort-wasm-simd-threaded.jspi'))).toBe(true);
  });

  test('wrangler refuses a folder with a file of 25.5 MiB (the size of the asyncify binary as onnxruntime-web ships it)', async () => {
    const folder = join(appDir, 'too-large');
    mkdirSync(join(folder, 'assets'), { recursive: true });
    writeFileSync(join(folder, 'assets', 'big.wasm'), new Uint8Array(26_781_914));
    writeFileSync(join(folder, 'wrangler.jsonc'), config('./assets'));
    const port = await freePort();
    const refused = await runTool(
      appDir,
      WRANGLER,
      ['dev', '--config', join(folder, 'wrangler.jsonc'), '--port', String(port)],
      env(appDir),
    ).then(
      () => 'served',
      (error: Error) => error.message,
    );
    expect(refused).toContain('Asset too large');
    expect(refused).toContain('25.5 MiB');
  });

  test("the page is cross-origin isolated and segments on two WASM threads: the command line's payload", async () => {
    const result = await runPage(`${server!.url}?threads=2`);
    expectCliPayload(result, packed.cliPayload);
    expect(result).toMatchObject({ isolated: true, backend: 'wasm', numThreads: 2, fallbacks: [] });
  });

  test.each([
    ['JSPI (Chromium)', ''],
    ['asyncify, its binary compressed (an engine without JSPI, as Safari 26)', '&noJspi'],
  ])("WebGPU on the %s build (SwiftShader): the command line's payload", async (_build, query) => {
    const result = await runPage(`${server!.url}?backends=webgpu&threads=2${query}`, { webgpu: true });
    expectCliPayload(result, packed.cliPayload);
    expect(result).toMatchObject({ isolated: true, backend: 'webgpu', fallbacks: [] });
  });

  test('a worker URL the host lacks: wrangler answers its page (the single-page-app fallback), and the error says so, naming the URL', async () => {
    const result = await runPage(`${server!.url}?workerUrl=/gone/segment-worker.js`);
    expect(result.error?.message, JSON.stringify({ ...result, payload: undefined })).toContain(
      `wasm: [RUNTIME_FILE_MISSING] edgeseg's worker script at ${server!.url}gone/segment-worker.js answered an HTML page`,
    );
    expectCliPayload(result, packed.cliPayload);
  });
});

// An app that worked once works with the network off: the packed edgeseg in a Vite app whose vite.config.js
// is the one docs/apps.md's "Offline" section gives (vite-plugin-pwa, Workbox's precache told to take
// .mjs, .wasm and .onnx files and files over 2 MiB), built and served with COOP/COEP. Loaded once, the
// host stopped and Chromium offline, reloaded: the command line's payload, on WASM (two threads) and on
// WebGPU (SwiftShader), whose runtime files are others.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { CHROMIUM_ARGS, CHROMIUM_PATH, CHROMIUM_WEBGPU_ARGS } from '../chromium.js';
import { startStaticServer, type StaticServer } from '../fixtures/static-server.js';
import { ROOT } from '../helpers/paths.js';
import { importFromApp, packedApp } from './bundler-apps.js';
import { expectCliPayload } from './expect-payload.js';
import type { PageResult } from './run-page.js';
import { makeToolApp } from './tool-app.js';

const { cliPayload, tarball } = inject('packed');

/** The vite.config.js of docs/apps.md's "Offline" section, as a reader copies it. */
function documentedConfig(): string {
  const docs = readFileSync(join(ROOT, 'docs', 'apps.md'), 'utf8');
  const section = docs.slice(docs.indexOf('\n## Offline\n'));
  const block = /```js\n(\/\/ vite\.config\.js\n[\s\S]*?)```/.exec(section);
  if (!block) throw new Error('docs/apps.md has no vite.config.js block in its "Offline" section');
  return block[1]!;
}

interface ViteApi {
  build(config: object): Promise<unknown>;
}

/** The page's outcome (test/packed/app/main.js), once it has one. */
async function pageResult(page: Page): Promise<PageResult> {
  await page.waitForFunction(() => 'edgesegResult' in window, null, { timeout: 120_000 });
  return {
    ...(await page.evaluate(() => (window as unknown as { edgesegResult: Omit<PageResult, 'console'> }).edgesegResult)),
    console: [],
  };
}

/** The backends tried: WASM on two threads, and WebGPU on Chromium's SwiftShader adapter (other runtime files). */
const CASES = [
  { name: 'WASM, two threads', query: 'threads=2', args: CHROMIUM_ARGS, expected: { backend: 'wasm', numThreads: 2 } },
  { name: 'WebGPU (SwiftShader)', query: 'backends=webgpu', args: CHROMIUM_WEBGPU_ARGS, expected: { backend: 'webgpu' } },
];

describe('an app with the documented service worker (vite-plugin-pwa)', () => {
  let appDir: string;
  beforeAll(async () => {
    const { files, copy } = packedApp();
    appDir = makeToolApp({
      name: 'pwa',
      dependencies: { vite: '8.3.8', 'vite-plugin-pwa': '2.0.0' },
      tarball,
      files: { ...files, 'vite.config.js': documentedConfig() },
      copy,
    });
    const vite = await importFromApp<ViteApi>(appDir, 'node_modules/vite/dist/node/index.js');
    await vite.build({
      root: appDir,
      configFile: join(appDir, 'vite.config.js'),
      logLevel: 'warn',
      build: { outDir: 'out', emptyOutDir: true },
    });
  });
  afterAll(() => {
    if (appDir) rmSync(appDir, { recursive: true, force: true });
  });

  test.each(CASES)(
    "$name: loaded once, then reloaded with the host stopped and the browser offline: the command line's payload",
    async ({ query, args, expected }) => {
      // A host of its own (a new origin: a new service worker) and a browser with the case's flags.
      const site: StaticServer = await startStaticServer(join(appDir, 'out'), { isolate: true });
      const browser: Browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args });
      try {
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.goto(`${site.url}/?${query}`);
        const online = await pageResult(page);
        expectCliPayload(online, cliPayload);
        expect(online).toMatchObject(expected);
        // The service worker has precached the build once it is activated (its install step fetches every file).
        const state = await page.evaluate(async () => {
          const worker = (await navigator.serviceWorker.ready).active!;
          if (worker.state !== 'activated') await new Promise((resolve) => worker.addEventListener('statechange', resolve));
          return worker.state;
        });
        expect(state).toBe('activated');

        await site.close();
        const cdp = await context.newCDPSession(page);
        await cdp.send('Network.enable');
        await cdp.send('Network.emulateNetworkConditions', { offline: true, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
        await page.reload();
        const offline = await pageResult(page);
        expectCliPayload(offline, cliPayload);
        expect(offline).toMatchObject({ isolated: true, fallbacks: [], ...expected });
        expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
      } finally {
        await browser.close();
        await site.close();
      }
    },
  );
});

// An app that worked once works with the network off, cross-origin isolated, keeping only the runtime it ran:
// the packed edgeseg in a Vite app made of docs/apps.md's "Offline" recipe (vite-plugin-pwa's injectManifest,
// its src/sw.js and src/offline.js, main.js waiting for the service worker), built once and served by
// `vite preview` with the recipe's config. Loaded once, the host stopped (and Chromium set offline, its own
// offline mode), reloaded: the command line's payload, the page isolated, and in Cache Storage the app's
// files, the model and the one build of onnxruntime-web the page ran. Chromium on WASM (two threads) and on
// WebGPU (SwiftShader), Firefox and WebKit on WASM, and Chromium on a host that sends no COOP/COEP, where
// only the service worker's headers make the reload isolated.
import { readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import type { EngineName } from '../engines/index.js';
import { startStaticServer } from '../fixtures/static-server.js';
import { ROOT } from '../helpers/paths.js';
import { stringContaining } from '../helpers/matchers.js';
import { importFromApp, packedApp } from './bundler-apps.js';
import { expectCliPayload, twoThreads } from './expect-payload.js';
import { runTool } from './framework-app.js';
import { closeBrowser, pageFor, runPage, type RunPageOptions } from './run-page.js';
import { makeToolApp } from './tool-app.js';

const { cliPayload, tarball } = inject('packed');

/** What the recipe installs (docs/apps.md's `npm install` line), at today's versions. */
const TOOLS = {
  vite: '8.4.1',
  'vite-plugin-pwa': '2.0.0',
  'workbox-core': '7.4.1',
  'workbox-precaching': '7.4.1',
  'workbox-routing': '7.4.1',
  'workbox-strategies': '7.4.1',
};

/** The files of docs/apps.md's "Offline" section, by the path each block names on its first line. */
function documentedFiles(): Record<string, string> {
  const docs = readFileSync(join(ROOT, 'docs', 'apps.md'), 'utf8');
  const section = docs.slice(docs.indexOf('\n## Offline\n'));
  const files: Record<string, string> = {};
  for (const [, name, body] of section.matchAll(/```js\n\/\/ ([\w./-]+)\n([\s\S]*?)```/g)) files[name!] = `// ${name}\n${body}`;
  for (const name of ['vite.config.js', 'src/sw.js', 'src/offline.js', 'main.js'])
    if (!files[name]) throw new Error(`docs/apps.md's "Offline" section has no ${name} block`);
  return files;
}

/** The test app's main.js (test/packed/app/), starting edgeseg as the recipe's main.js does: once the service worker is in control. */
function appMain(documented: string, main: string): string {
  const wait = ["import { serviceWorkerInControl } from './src/offline.js';", 'await serviceWorkerInControl();'];
  for (const line of wait) expect(documented).toContain(line);
  expect(documented.indexOf(wait[1]!)).toBeLessThan(documented.indexOf('createSegmenter('));
  return main.replace("import { createSegmenter } from 'edgeseg';\n", (line) => `${line}${wait.join('\n')}\n`);
}

interface Host {
  url: string;
  /** The paths asked for so far, in order. */
  asked(): string[];
  /** Stops it (once; later calls wait for that). */
  stop(): Promise<void>;
}

interface PreviewServer {
  resolvedUrls: { local: string[] } | null;
  close(): Promise<void>;
}
interface ViteApi {
  preview(config: object): Promise<PreviewServer>;
}

let appDir: string;
let vite: ViteApi;

/** `vite preview` with the app's config (its preview headers among it), on a port of its own: a new origin, so a new service worker. */
async function previewHost(): Promise<Host> {
  const asked: string[] = [];
  const record = {
    name: 'record-requests',
    configurePreviewServer(server: {
      middlewares: { use(f: (req: IncomingMessage, res: ServerResponse, next: () => void) => void): void };
    }) {
      server.middlewares.use((req, _res, next) => {
        asked.push(new URL(req.url ?? '/', 'http://x').pathname);
        next();
      });
    },
  };
  const server = await vite.preview({
    root: appDir,
    configFile: join(appDir, 'vite.config.js'),
    logLevel: 'warn',
    build: { outDir: 'out' },
    preview: { host: '127.0.0.1', port: 0 },
    plugins: [record],
  });
  let stopped: Promise<void> | undefined;
  return { url: server.resolvedUrls!.local[0]!.replace(/\/$/, ''), asked: () => [...asked], stop: () => (stopped ??= server.close()) };
}

/** A static host of the build that sends no COOP/COEP. */
async function bareHost(): Promise<Host> {
  const site = await startStaticServer(join(appDir, 'out'));
  let stopped: Promise<void> | undefined;
  return { url: site.url, asked: site.requests, stop: () => (stopped ??= site.close()) };
}

/** Cache Storage as the page sees it: each cache's entries (path → body bytes), and their sum. */
async function cacheStorage(options: RunPageOptions): Promise<{ caches: Record<string, Record<string, number>>; bytes: number }> {
  const page = await pageFor(options);
  return page.evaluate(async () => {
    const caches: Record<string, Record<string, number>> = {};
    let bytes = 0;
    for (const name of await globalThis.caches.keys()) {
      const cache = await globalThis.caches.open(name);
      const entries: Record<string, number> = {};
      for (const request of await cache.keys()) {
        const size = (await (await cache.match(request))!.arrayBuffer()).byteLength;
        entries[new URL(request.url).pathname] = size;
        bytes += size;
      }
      // Workbox names its precache after the scope (an origin that changes from run to run).
      caches[name.replace(/-https?:\/\/.*$/, '')] = entries;
    }
    return { caches, bytes };
  });
}

/** onnxruntime-web's files among `paths`, by their names before Vite hashed them. */
const ortFiles = (paths: string[]) =>
  paths
    .map((path) => path.split('/').pop()!)
    .filter((name) => name.startsWith('ort'))
    .map((name) => name.replace(/-[\w-]{8}(\.\w+)$/, '$1'))
    .sort();

const WASM_BUILD = ['ort-wasm-simd-threaded.wasm', 'ort.wasm.bundle.min.mjs'];
const JSPI_BUILD = ['ort-wasm-simd-threaded.jspi.wasm', 'ort.jspi.bundle.min.mjs'];
/** The bound that the recipe keeps a WASM visitor's Cache Storage under (the app, the runtime and the model). */
const TWENTY_MB = 20_000_000;

beforeAll(async () => {
  const recipe = documentedFiles();
  const { files, copy } = packedApp();
  appDir = makeToolApp({
    name: 'pwa',
    dependencies: TOOLS,
    tarball,
    files: {
      ...files,
      'main.js': appMain(recipe['main.js']!, files['main.js']!),
      'vite.config.js': recipe['vite.config.js']!,
      'src/sw.js': recipe['src/sw.js']!,
      'src/offline.js': recipe['src/offline.js']!,
    },
    copy,
  });
  // Built as a user builds it: Vite's command line, in production mode (runTool leaves out Vitest's
  // NODE_ENV=test, which would make import.meta.env.PROD false, and Workbox's modules their development builds).
  await runTool(appDir, 'vite/bin/vite.js', ['build', '--outDir', 'out', '--logLevel', 'warn']);
  vite = await importFromApp<ViteApi>(appDir, 'node_modules/vite/dist/node/index.js');
});
afterAll(async () => {
  await closeBrowser();
  if (appDir) rmSync(appDir, { recursive: true, force: true });
});

interface Case {
  name: string;
  engine: EngineName;
  webgpu?: boolean;
  host: () => Promise<Host>;
  query: string;
  /** The page's outcome on the first visit, and offline. */
  online: object;
  offline: object;
  /** The build of onnxruntime-web the page runs, which is all of it that it asks for and keeps. */
  runtime: string[];
  /** An upper bound on the Cache Storage it ends with. */
  bytes?: number;
}

const cases: Case[] = [
  ...(['chromium', 'firefox', 'webkit'] as const).map((engine): Case => ({
    name: `${engine}, WASM`,
    engine,
    host: previewHost,
    query: 'threads=2',
    online: twoThreads(engine).expected,
    offline: twoThreads(engine).expected,
    runtime: WASM_BUILD,
    ...(engine === 'chromium' ? { bytes: TWENTY_MB } : {}),
  })),
  {
    name: 'chromium, WebGPU (SwiftShader), the default backends',
    engine: 'chromium',
    webgpu: true,
    host: previewHost,
    query: 'backends=default&threads=2',
    online: { isolated: true, backend: 'webgpu', fallbacks: [] },
    offline: { isolated: true, backend: 'webgpu', fallbacks: [] },
    runtime: JSPI_BUILD,
  },
  {
    name: 'chromium, WASM, on a host that sends no COOP/COEP',
    engine: 'chromium',
    host: bareHost,
    query: 'threads=2',
    online: {
      isolated: false,
      backend: 'wasm',
      numThreads: 1,
      fallbacks: [{ backend: 'wasm', code: 'NOT_ISOLATED', message: stringContaining('one thread') }],
    },
    offline: twoThreads('chromium').expected,
    runtime: WASM_BUILD,
    bytes: TWENTY_MB,
  },
];

describe("an app with docs/apps.md's offline recipe (vite-plugin-pwa, a Workbox service worker that adds COOP/COEP)", () => {
  for (const { name, engine, webgpu = false, host: start, query, online, offline, runtime, bytes } of cases)
    test(`${name}: loaded once, then reloaded with the host stopped: the command line's payload, isolated, and only the runtime it ran kept`, async () => {
      const options: RunPageOptions = { engine, webgpu };
      const host = await start();
      const page = await pageFor(options);
      try {
        const url = `${host.url}/?${query}`;
        const first = await runPage(url, options);
        expectCliPayload(first, cliPayload);
        expect(first).toMatchObject(online);
        // The page started edgeseg once the service worker controlled it: the runtime it asked for went through it.
        expect(await page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
        // Which build, not how often: under load Firefox once asked for the module twice (two misses of the
        // CacheFirst route before the first response was kept); that a page asks once is vite-build.test.ts's.
        expect([...new Set(ortFiles(host.asked()))]).toEqual(runtime);

        await host.stop();
        await page.setOffline?.(true);
        const again = await runPage(url, options);
        expectCliPayload(again, cliPayload);
        expect(again).toMatchObject(offline);

        const storage = await cacheStorage(options);
        expect(ortFiles(Object.keys(storage.caches['onnxruntime-web'] ?? {}))).toEqual(runtime);
        // Every file of the app was precached; no file of onnxruntime-web was.
        expect(ortFiles(Object.keys(storage.caches['workbox-precache-v2'] ?? {}))).toEqual([]);
        expect(Object.keys(storage.caches['workbox-precache-v2'] ?? {})).toContain('/index.html');
        if (bytes) expect(storage.bytes).toBeLessThan(bytes);
      } finally {
        await page.setOffline?.(false);
        await host.stop();
      }
    });
});

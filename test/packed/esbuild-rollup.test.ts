// esbuild (ES module and its default IIFE format) and Rollup 4 with @rollup/plugin-node-resolve, on a
// fresh app that imports the packed edgeseg: bundlers that copy no files. The one documented step is
// `npx edgeseg copy-runtime <dir>` and `runtimeUrl`; without it the page's error names that step. Hosted
// as a static host with COOP/COEP that answers unknown paths with index.html. Chromium.
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { startStaticServer, type StaticServer } from '../fixtures/static-server.js';
import { stringContaining } from '../helpers/matchers.js';
import { importFromApp, packedApp } from './bundler-apps.js';
import { expectCliPayload } from './expect-payload.js';
import { closeBrowser, runPage } from './run-page.js';
import { makeToolApp } from './tool-app.js';

const { cliPayload, tarball } = inject('packed');

interface EsbuildApi {
  build: (options: object) => Promise<{ warnings: unknown[] }>;
}
interface RollupApi {
  rollup: (options: object) => Promise<{ write(options: object): Promise<unknown>; close(): Promise<void> }>;
}

let appDir: string;
/** One static host per output folder, by name. */
const sites = new Map<string, StaticServer>();

/** The app's page beside `bundle`, the model and image, and (with `runtime`) `copy-runtime <out>/edgeseg` as a user runs it. */
async function host(out: string, { runtime }: { runtime: boolean }): Promise<string> {
  const dir = join(appDir, out);
  cpSync(join(appDir, 'index.html'), join(dir, 'index.html'));
  cpSync(join(appDir, 'public'), dir, { recursive: true });
  if (runtime) execFileSync(process.execPath, ['node_modules/edgeseg/bin/edgeseg.js', 'copy-runtime', `${out}/edgeseg`], { cwd: appDir });
  const site = await startStaticServer(dir, { isolate: true, spaFallback: true });
  sites.set(out, site);
  return site.url;
}

beforeAll(() => {
  appDir = makeToolApp({
    name: 'esbuild-rollup',
    dependencies: { esbuild: '0.28.2', rollup: '4.68.8', '@rollup/plugin-node-resolve': '16.0.3' },
    tarball,
    ...packedApp(),
  });
});
afterAll(async () => {
  await closeBrowser();
  await Promise.all([...sites.values()].map((s) => s.close()));
  rmSync(appDir, { recursive: true, force: true });
});

describe('esbuild 0.28, an ES module bundle', () => {
  let url: string;
  let bare: string;
  beforeAll(async () => {
    const { build } = await importFromApp<EsbuildApi>(appDir, 'node_modules/esbuild/lib/main.js');
    for (const out of ['esm', 'esm-bare'])
      await build({
        absWorkingDir: appDir,
        entryPoints: ['main.js'],
        bundle: true,
        format: 'esm',
        outfile: `${out}/main.js`,
        logLevel: 'silent',
      });
    url = await host('esm', { runtime: true });
    bare = await host('esm-bare', { runtime: false });
  });

  test("after `edgeseg copy-runtime esm/edgeseg`, runtimeUrl '/edgeseg/': two WASM threads, the command line's payload", async () => {
    expect(readdirSync(join(appDir, 'esm', 'edgeseg')).sort()).toEqual([
      'ort-wasm-simd-threaded.asyncify.wasm.gz',
      'ort-wasm-simd-threaded.jspi.wasm',
      'ort-wasm-simd-threaded.wasm',
      'ort.jspi.bundle.min.mjs',
      'ort.wasm.bundle.min.mjs',
      'ort.webgpu.bundle.min.mjs',
      'segment-worker.js',
      'segment-worker.js.map',
    ]);
    const result = await runPage(`${url}/?threads=2&runtimeUrl=/edgeseg/`);
    expectCliPayload(result, cliPayload);
    expect(result).toMatchObject({ isolated: true, backend: 'wasm', numThreads: 2, fallbacks: [] });
  });

  test('without the step: RUNTIME_FILE_MISSING naming the URL the bundle looked at and the copy-runtime step', async () => {
    const result = await runPage(`${bare}/`);
    expect(result.failed).toMatchObject({
      code: 'NO_BACKEND',
      message: stringContaining(
        `wasm: [RUNTIME_FILE_MISSING] edgeseg's worker script at ${bare}/segment-worker.js answered an HTML page (often a single-page-app fallback for a path the host lacks); the bundler did not put edgeseg's runtime files beside the bundle (esbuild and Rollup copy no files): run \`npx edgeseg copy-runtime <your static folder>/edgeseg\` and pass \`runtimeUrl: '/edgeseg/'\``,
      ),
    });
  });
});

describe("esbuild 0.28's default IIFE bundle, which empties import.meta", () => {
  let url: string;
  beforeAll(async () => {
    const { build } = await importFromApp<EsbuildApi>(appDir, 'node_modules/esbuild/lib/main.js');
    await build({ absWorkingDir: appDir, entryPoints: ['main.js'], bundle: true, outfile: 'iife/main.js', logLevel: 'silent' });
    url = await host('iife', { runtime: true });
  });

  test("with runtimeUrl after copy-runtime: the command line's payload on two threads", async () => {
    const result = await runPage(`${url}/?threads=2&runtimeUrl=/edgeseg/`);
    expectCliPayload(result, cliPayload);
    expect(result).toMatchObject({ isolated: true, backend: 'wasm', numThreads: 2, fallbacks: [] });
  });

  test('without it: RUNTIME_URL_UNKNOWN saying import.meta is gone and what to set, not a URL TypeError', async () => {
    const result = await runPage(`${url}/`);
    expect(result.failed).toMatchObject({
      code: 'NO_BACKEND',
      message: stringContaining(
        "wasm: [RUNTIME_URL_UNKNOWN] edgeseg cannot tell where its runtime files are: this bundle has no `import.meta.url` (esbuild's default IIFE format empties `import.meta`); run `npx edgeseg copy-runtime <your static folder>/edgeseg` and pass `runtimeUrl: '/edgeseg/'`",
      ),
    });
    expect(result.failed?.message).not.toContain('Invalid URL');
  });
});

describe('Rollup 4 with @rollup/plugin-node-resolve', () => {
  let url: string;
  beforeAll(async () => {
    const { rollup } = await importFromApp<RollupApi>(appDir, 'node_modules/rollup/dist/es/rollup.js');
    const { default: nodeResolve } = await importFromApp<{ default: (o: object) => object }>(
      appDir,
      'node_modules/@rollup/plugin-node-resolve/dist/es/index.js',
    );
    const bundle = await rollup({ input: join(appDir, 'main.js'), plugins: [nodeResolve({ browser: true })], onwarn: () => undefined });
    await bundle.write({ dir: join(appDir, 'rollup'), format: 'es' });
    await bundle.close();
    url = await host('rollup', { runtime: true });
  });

  test("with runtimeUrl after copy-runtime: the command line's payload on two threads", async () => {
    const result = await runPage(`${url}/?threads=2&runtimeUrl=/edgeseg/`);
    expectCliPayload(result, cliPayload);
    expect(result).toMatchObject({ isolated: true, backend: 'wasm', numThreads: 2, fallbacks: [] });
  });

  test("a workerUrl at a script that runs but is not edgeseg's worker: RUNTIME_FILE_MISSING naming it, after a deadline, not a hang", async () => {
    const result = await runPage(`${url}/?runtimeUrl=/edgeseg/&workerUrl=/edgeseg/ort.wasm.bundle.min.mjs`);
    expect(result.error?.message).toContain(
      `wasm: [RUNTIME_FILE_MISSING] edgeseg's worker script at ${url}/edgeseg/ort.wasm.bundle.min.mjs runs but never answered: it is another file, not edgeseg's segment-worker.js`,
    );
  });

  test('with runtimeUrl pointing where nothing was copied: RUNTIME_FILE_MISSING naming the URL and the command for that folder', async () => {
    const result = await runPage(`${url}/?runtimeUrl=/elsewhere/`);
    expect(result.error?.message).toContain(
      `wasm: [RUNTIME_FILE_MISSING] edgeseg's worker script at ${url}/elsewhere/segment-worker.js answered an HTML page (often a single-page-app fallback for a path the host lacks); copy edgeseg's runtime there: \`npx edgeseg copy-runtime <the folder that the server serves at ${url}/elsewhere/>\``,
    );
  });
});

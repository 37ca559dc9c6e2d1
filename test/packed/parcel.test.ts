// Parcel 2.16, production build and dev server, on a fresh app that imports the packed edgeseg with no
// Parcel option. Parcel re-bundles onnxruntime-web's module as an app entry (its exports dropped, its
// import.meta.url fixed at build time): the worker finds the exports that edgeseg's copy of the module
// also hands to a global, and runs WASM on one thread, saying so. Chromium.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { startStaticServer, type StaticServer } from '../fixtures/static-server.js';
import { stringContaining } from '../helpers/matchers.js';
import { packedApp } from './bundler-apps.js';
import { expectCliPayload } from './expect-payload.js';
import { closeBrowser, runPage } from './run-page.js';
import { makeToolApp } from './tool-app.js';

const { cliPayload, tarball } = inject('packed');
const PARCEL = 'node_modules/parcel/lib/bin.js';
let appDir: string;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Resolves once `url` answers the app's page: Parcel's dev server has built it. */
async function served(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 240_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`parcel serve exited ${child.exitCode}: ${output()}`);
    const page = await fetch(url).then(
      (r) => (r.ok ? r.text() : ''),
      () => '',
    );
    if (page.includes('<script')) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`parcel serve did not answer ${url}: ${output()}`);
}

beforeAll(() => {
  appDir = makeToolApp({ name: 'parcel2', dependencies: { parcel: '2.16.4' }, tarball, ...packedApp('static') });
});
afterAll(async () => {
  await closeBrowser();
  rmSync(appDir, { recursive: true, force: true });
});

describe('Parcel 2.16 production build', () => {
  let site: StaticServer;
  beforeAll(async () => {
    execFileSync(process.execPath, [PARCEL, 'build', 'index.html', '--dist-dir', 'out', '--no-autoinstall'], {
      cwd: appDir,
      stdio: 'pipe',
    });
    // The app's static files, as a Parcel user copies them beside the build; and a module that exports nothing.
    cpSync(join(appDir, 'static'), join(appDir, 'out'), { recursive: true });
    mkdirSync(join(appDir, 'out', 'empty'));
    writeFileSync(join(appDir, 'out', 'empty', 'ort.wasm.bundle.min.mjs'), 'export {};\n');
    // The documented way to threads under Parcel: the runtime as shipped, beside the build.
    execFileSync(process.execPath, ['node_modules/edgeseg/bin/edgeseg.js', 'copy-runtime', 'out/edgeseg'], { cwd: appDir });
    site = await startStaticServer(join(appDir, 'out'), { isolate: true, spaFallback: true });
  });
  afterAll(() => site?.close());

  test("with `edgeseg copy-runtime out/edgeseg` and runtimeUrl: two WASM threads, the command line's payload", async () => {
    const result = await runPage(`${site.url}/?threads=2&runtimeUrl=/edgeseg/`);
    expectCliPayload(result, cliPayload);
    expect(result).toMatchObject({ isolated: true, backend: 'wasm', numThreads: 2, fallbacks: [] });
  });

  test("the page segments with no option: the command line's payload, on one WASM thread with RUNTIME_REBUNDLED saying why", async () => {
    const result = await runPage(`${site.url}/?threads=2`);
    expectCliPayload(result, cliPayload);
    expect(result).toMatchObject({
      isolated: true,
      backend: 'wasm',
      numThreads: 1,
      fallbacks: [{ backend: 'wasm', code: 'RUNTIME_REBUNDLED', message: stringContaining("re-bundled onnxruntime-web's module") }],
    });
  });

  test('an onnxruntime-web module that loads but exports nothing: RUNTIME_FILE_MISSING naming the file', async () => {
    const result = await runPage(`${site.url}/?wasmPaths=/empty/`);
    expect(result.error?.message).toContain(
      `wasm: [RUNTIME_FILE_MISSING] onnxruntime-web's ES module at ${site.url}/empty/ort.wasm.bundle.min.mjs loaded but exports no onnxruntime-web`,
    );
    expectCliPayload(result, cliPayload);
  });
});

describe('Parcel 2.16 dev server', () => {
  let child: ChildProcess;
  let url: string;
  let output = '';
  beforeAll(async () => {
    const port = await freePort();
    cpSync(join(appDir, 'static'), join(appDir, 'dev'), { recursive: true });
    child = spawn(process.execPath, [PARCEL, 'serve', 'index.html', '--dist-dir', 'dev', '--port', String(port), '--no-autoinstall'], {
      cwd: appDir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-4000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    url = `http://localhost:${port}/`;
    await served(url, child, () => output);
  });
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });

  test("the page segments with no option: the command line's payload", async () => {
    const result = await runPage(url);
    expectCliPayload(result, cliPayload);
    expect(result).toMatchObject({ backend: 'wasm', numThreads: 1 });
  });
});

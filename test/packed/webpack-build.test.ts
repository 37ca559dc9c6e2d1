// webpack 5's production build of an app that imports the packed edgeseg, with no webpack option for it,
// hosted on a static host that answers unknown paths with index.html and sends COOP/COEP.
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import webpack, { type Stats } from 'webpack';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { startStaticServer, type StaticServer } from '../fixtures/static-server.js';
import { expectCliPayload, expectRuntimeFilesCopied } from './expect-payload.js';
import { startModelHost } from './model-host.js';
import { closeBrowser, runPage } from './run-page.js';
import { warningsOf, webpackConfig } from './webpack-app.js';

const { appDir, cliPayload } = inject('packed');
const config = webpackConfig(appDir, 'production');
const OUT_DIR = config.output!.path!;
let stats: Stats;
let site: StaticServer;
let models: Awaited<ReturnType<typeof startModelHost>>;
const page = (query = '') => runPage(`${site.url}/?model=${encodeURIComponent(models.modelUrl)}${query}`);

beforeAll(async () => {
  stats = await new Promise<Stats>((resolve, reject) => webpack(config, (error, result) => (error || !result ? reject(error) : resolve(result))));
  cpSync(join(appDir, 'index.html'), join(OUT_DIR, 'index.html'));
  cpSync(join(appDir, 'public'), OUT_DIR, { recursive: true });
  site = await startStaticServer(OUT_DIR, { isolate: true, spaFallback: true });
  models = await startModelHost(appDir);
});
afterAll(async () => {
  await closeBrowser();
  await site?.close();
  await models?.close();
});

describe('edgeseg in a webpack production build', () => {
  test('the build has no error and no warning but webpack\'s size hints', () => {
    expect(stats.hasErrors() ? stats.toString('errors-only') : '').toBe('');
    expect(warningsOf(stats)).toEqual([]);
  });

  test('the build carries onnxruntime-web\'s WASM binaries (WebGPU\'s too) as they were shipped', () => {
    expectRuntimeFilesCopied(OUT_DIR, appDir, { binariesOnly: true });
  });

  test('the built page segments on two WASM threads: the command line\'s payload', async () => {
    const result = await page('&threads=2');
    expectCliPayload(result, cliPayload);
    expect(result).toMatchObject({ isolated: true, backend: 'wasm', numThreads: 2, fallbacks: [] });
  });
});

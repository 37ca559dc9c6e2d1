// webpack's dev server on an app that imports the packed edgeseg, with no webpack option for it; COOP/COEP
// are the one setting (devServer.headers), as the README says, for threads.
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import webpack from 'webpack';
import WebpackDevServer from 'webpack-dev-server';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { expectCliPayload } from './expect-payload.js';
import { startModelHost } from './model-host.js';
import { closeBrowser, runPage } from './run-page.js';
import { warningsOf, webpackConfig } from './webpack-app.js';

const { appDir, cliPayload } = inject('packed');
const compiler = webpack(webpackConfig(appDir, 'development'));
let server: WebpackDevServer;
let url: string;
let warnings: string[] = [];
let models: Awaited<ReturnType<typeof startModelHost>>;
const page = (query = '') => runPage(`${url}/?model=${encodeURIComponent(models.modelUrl)}${query}`);

beforeAll(async () => {
  compiler.hooks.done.tap('edgeseg-test', (stats) => void (warnings = warningsOf(stats)));
  server = new WebpackDevServer(
    {
      host: '127.0.0.1',
      port: 0,
      static: [appDir, join(appDir, 'public')].map((directory) => ({ directory, watch: false })),
      headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' },
      // The stats table only; warnings are asserted on below.
      devMiddleware: { stats: 'errors-warnings' },
    },
    compiler,
  );
  await server.start();
  url = `http://127.0.0.1:${(server.server!.address() as AddressInfo).port}`;
  models = await startModelHost(appDir);
});
afterAll(async () => {
  await closeBrowser();
  await server?.stop();
  await models?.close();
});

describe('edgeseg under webpack\'s dev server', () => {
  test('the page segments on two WASM threads: the command line\'s payload', async () => {
    const result = await page('&threads=2');
    expectCliPayload(result, cliPayload);
    expect(result).toMatchObject({ isolated: true, backend: 'wasm', numThreads: 2, fallbacks: [] });
  });

  test('the compilation has no warning but webpack\'s size hints', () => {
    expect(warnings).toEqual([]);
  });
});

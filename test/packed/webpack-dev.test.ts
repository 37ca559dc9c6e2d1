// webpack's dev server on an app that imports the packed edgeseg, with no webpack option for it; COOP/COEP
// are the one setting (devServer.headers), as the README says, for threads. The model is among the static
// files the dev server serves (public/). One compilation, run in each engine.
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import webpack from 'webpack';
import WebpackDevServer from 'webpack-dev-server';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { ENGINES } from '../engines/index.js';
import { expectCliPayload, twoThreads } from './expect-payload.js';
import { closeBrowser, runPage } from './run-page.js';
import { warningsOf, webpackConfig } from './webpack-app.js';

const { appDir, cliPayload } = inject('packed');
const compiler = webpack(webpackConfig(appDir, 'development'));
let server: WebpackDevServer;
let url: string;
/** The first compilation's warnings; set when it is done (the dev server starts before it is). */
let warnings: Promise<string[]>;

beforeAll(async () => {
  warnings = new Promise((resolve) => compiler.hooks.done.tap('edgeseg-test', (stats) => resolve(warningsOf(stats))));
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
});
afterAll(async () => {
  await closeBrowser();
  await server?.stop();
});

describe("edgeseg under webpack's dev server", () => {
  test.each(ENGINES)(
    "in %s, the page segments (two WASM threads where the engine has shared memory) with the model from the dev server: the command line's payload",
    async (engine) => {
      const { query, expected } = twoThreads(engine);
      try {
        const result = await runPage(`${url}/?${query}`, { engine });
        expectCliPayload(result, cliPayload);
        expect(result).toMatchObject(expected);
      } finally {
        await closeBrowser(engine);
      }
    },
  );

  test("the compilation has no warning but webpack's size hints", async () => {
    expect(await warnings).toEqual([]);
  });
});

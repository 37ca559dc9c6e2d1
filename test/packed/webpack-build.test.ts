// webpack 5's production build of an app that imports the packed edgeseg, with no webpack option for it,
// hosted on a static host that answers unknown paths with index.html and sends COOP/COEP, the model among
// the app's own static files (copied beside the build); built once, run in each engine.
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import webpack, { type Stats } from 'webpack';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { ENGINES } from '../engines/index.js';
import { startStaticServer, type StaticServer } from '../fixtures/static-server.js';
import { expectCliPayload, expectRuntimeFilesCopied, twoThreads } from './expect-payload.js';
import { closeBrowser, runPage } from './run-page.js';
import { warningsOf, webpackConfig } from './webpack-app.js';

const { appDir, cliPayload } = inject('packed');
const config = webpackConfig(appDir, 'production');
const OUT_DIR = config.output!.path!;
let stats: Stats;
let site: StaticServer;

beforeAll(async () => {
  stats = await new Promise<Stats>((resolve, reject) =>
    webpack(config, (error, result) =>
      result && !error ? resolve(result) : reject(error ?? new Error('webpack answered neither stats nor an error')),
    ),
  );
  cpSync(join(appDir, 'index.html'), join(OUT_DIR, 'index.html'));
  cpSync(join(appDir, 'public'), OUT_DIR, { recursive: true });
  site = await startStaticServer(OUT_DIR, { isolate: true, spaFallback: true });
});
afterAll(async () => {
  await closeBrowser();
  await site?.close();
});

describe('edgeseg in a webpack production build', () => {
  test("the build has no error and no warning but webpack's size hints", () => {
    expect(stats.hasErrors() ? stats.toString('errors-only') : '').toBe('');
    expect(warningsOf(stats)).toEqual([]);
  });

  test("the build carries onnxruntime-web's WASM binaries (WebGPU's too) as they were shipped", () => {
    expectRuntimeFilesCopied(OUT_DIR, appDir, { binariesOnly: true });
  });

  test.each(ENGINES)(
    "in %s, the built page segments (two WASM threads where the engine has shared memory) with the model from the app's host: the command line's payload",
    async (engine) => {
      const { query, expected } = twoThreads(engine);
      try {
        const result = await runPage(`${site.url}/?${query}`, { engine });
        expectCliPayload(result, cliPayload);
        expect(result).toMatchObject(expected);
      } finally {
        await closeBrowser(engine);
      }
    },
  );
});

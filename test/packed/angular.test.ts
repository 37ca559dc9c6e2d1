// Angular 22 and 21 (the application builder, on esbuild and Vite) with the packed edgeseg: `ng serve` with no
// option for it, and `ng build` served by a static host. The component's bootstrap loads the app's script;
// angular.json's serve `headers` make the dev server's page cross-origin isolated, the host's headers the
// build's. Angular's build copies no file that a dependency refers to with `new URL(…, import.meta.url)`,
// so a build has one documented step, an `assets` entry; without it the page's error says so.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { ANGULAR_ASSETS } from '../../src/runtime/framework-fix.js';
import { startStaticServer } from '../fixtures/static-server.js';
import { stringContaining } from '../helpers/matchers.js';
import { expectRuntimeFilesCopied } from './expect-payload.js';
import {
  expectSegmentsOnTwoThreads,
  expectServedPageSegments,
  ISOLATION_HEADERS,
  MAIN_JS,
  makeFrameworkApp,
  runTool,
} from './framework-app.js';
import { closeBrowser, runPage } from './run-page.js';

const packed = inject('packed');
const NG = '@angular/cli/bin/ng.js';
/** The one step for `ng build`, as docs/frameworks.md and the error give it. */
const EDGESEG_ASSETS = ANGULAR_ASSETS;
function angularJson(assets: object[]): string {
  return JSON.stringify(
    {
      $schema: './node_modules/@angular/cli/lib/config/schema.json',
      version: 1,
      cli: { analytics: false },
      newProjectRoot: 'projects',
      projects: {
        app: {
          projectType: 'application',
          root: '',
          sourceRoot: 'src',
          architect: {
            build: {
              builder: '@angular/build:application',
              options: { browser: 'src/main.ts', index: 'src/index.html', tsConfig: 'tsconfig.json', assets },
              configurations: {
                production: { outputHashing: 'all' },
                development: { optimization: false, extractLicenses: false, sourceMap: true },
              },
              defaultConfiguration: 'production',
            },
            serve: {
              builder: '@angular/build:dev-server',
              options: { buildTarget: 'app:build:development', headers: ISOLATION_HEADERS },
            },
          },
        },
      },
    },
    null,
    2,
  );
}

const FILES = {
  'angular.json': angularJson([{ glob: '**/*', input: 'public' }]),
  'tsconfig.json': JSON.stringify({
    compilerOptions: {
      strict: true,
      target: 'ES2022',
      module: 'preserve',
      moduleResolution: 'bundler',
      allowJs: true,
      skipLibCheck: true,
      isolatedModules: true,
    },
    files: ['src/main.ts'],
  }),
  'src/index.html': `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><title>edgeseg in Angular</title><base href="/" /></head>
  <body><app-root></app-root></body>
</html>
`,
  'src/main.ts': `import { Component } from '@angular/core';
import { bootstrapApplication } from '@angular/platform-browser';

@Component({ selector: 'app-root', template: '<p id="status">loading</p>' })
class App {}

bootstrapApplication(App).then(() => import('./edgeseg-page.js'));
`,
  'src/edgeseg-page.js': MAIN_JS,
};

afterAll(() => closeBrowser());

describe.each([
  { name: 'Angular 22', framework: 'angular22' as const },
  { name: 'Angular 21', framework: 'angular21' as const },
])('edgeseg in $name', ({ framework }) => {
  let appDir: string;
  beforeAll(() => {
    appDir = makeFrameworkApp(packed, framework, FILES);
  });
  afterAll(() => {
    if (appDir) rmSync(appDir, { recursive: true, force: true });
  });

  test("ng serve: the page segments on two WASM threads: the command line's payload", { timeout: 480_000 }, async () => {
    // As on a developer's machine: Angular pre-bundles dependencies only with its cache on, and its cache is
    // off where CI is set (cli.cache.environment 'local'); without it, ng serve needs the assets entry as ng build does.
    await expectServedPageSegments(
      appDir,
      NG,
      (port) => ['serve', '--host', '127.0.0.1', '--port', String(port)],
      packed.cliPayload,
      () => ({
        CI: '',
      }),
    );
  });

  test('ng build with no step: RUNTIME_FILE_MISSING names the angular.json step', { timeout: 480_000 }, async () => {
    await runTool(appDir, NG, ['build']);
    const site = await startStaticServer(join(appDir, 'dist', 'app', 'browser'), { isolate: true, spaFallback: true });
    try {
      const result = await runPage(`${site.url}/`);
      expect(result.failed, JSON.stringify({ ...result, payload: undefined })).toMatchObject({
        code: 'NO_BACKEND',
        message: stringContaining(`[RUNTIME_FILE_MISSING] edgeseg's worker script at ${site.url}/segment-worker.js answered an HTML page`),
      });
      expect(result.failed?.message).toContain(JSON.stringify(EDGESEG_ASSETS));
    } finally {
      await site.close();
    }
  });

  test(
    "ng build with the assets entry: the runtime files are copied, and the page segments on two WASM threads: the command line's payload",
    { timeout: 480_000 },
    async () => {
      const config = JSON.parse(readFileSync(join(appDir, 'angular.json'), 'utf8')) as {
        projects: { app: { architect: { build: { options: { assets: object[] } } } } };
      };
      config.projects.app.architect.build.options.assets.push(EDGESEG_ASSETS);
      writeFileSync(join(appDir, 'angular.json'), JSON.stringify(config, null, 2));
      await runTool(appDir, NG, ['build']);
      const out = join(appDir, 'dist', 'app', 'browser');
      expectRuntimeFilesCopied(out, appDir);
      const site = await startStaticServer(out, { isolate: true, spaFallback: true });
      try {
        await expectSegmentsOnTwoThreads(`${site.url}/`, packed.cliPayload);
      } finally {
        await site.close();
      }
    },
  );
});

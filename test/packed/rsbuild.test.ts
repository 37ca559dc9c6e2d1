// Rsbuild 2 with the packed edgeseg and no option for it: `rsbuild dev`, and `rsbuild build` served by
// `rsbuild preview`. The app's entry is the test app's script, its page a template with the status line;
// Rsbuild's `server.headers` (dev and preview) make the page cross-origin isolated, for WASM threads.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, inject, test } from 'vitest';
import { expectRuntimeFilesCopied } from './expect-payload.js';
import { expectServedPageSegments, ISOLATION_HEADERS, MAIN_JS, makeFrameworkApp, runTool } from './framework-app.js';
import { closeBrowser } from './run-page.js';

const packed = inject('packed');
const RSBUILD = '@rsbuild/core/bin/rsbuild.js';
let appDir: string;

beforeAll(() => {
  appDir = makeFrameworkApp(packed, 'rsbuild2', {
    'rsbuild.config.mjs': `import { defineConfig } from '@rsbuild/core';
export default defineConfig({
  html: { template: './index.html' },
  server: { headers: ${JSON.stringify(ISOLATION_HEADERS)} },
});
`,
    'index.html': `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><title>edgeseg in Rsbuild</title></head>
  <body><p id="status">loading</p></body>
</html>
`,
    'src/index.js': MAIN_JS,
  });
});
afterAll(async () => {
  await closeBrowser();
  if (appDir) rmSync(appDir, { recursive: true, force: true });
});

describe('edgeseg in Rsbuild 2', () => {
  test("rsbuild dev: the page segments on two WASM threads: the command line's payload", { timeout: 480_000 }, async () => {
    await expectServedPageSegments(appDir, RSBUILD, (port) => ['dev', '--host', '127.0.0.1', '--port', String(port)], packed.cliPayload);
  });

  test(
    "rsbuild build, served by rsbuild preview: the runtime's WASM is copied, and the page segments on two WASM threads: the command line's payload",
    { timeout: 480_000 },
    async () => {
      await runTool(appDir, RSBUILD, ['build']);
      // Rsbuild minifies the JavaScript files it copies; the binaries are as shipped.
      expectRuntimeFilesCopied(join(appDir, 'dist'), appDir, { binariesOnly: true });
      await expectServedPageSegments(
        appDir,
        RSBUILD,
        (port) => ['preview', '--host', '127.0.0.1', '--port', String(port)],
        packed.cliPayload,
      );
    },
  );
});

// Astro 7 (on Vite 8) and Astro 6 (on Vite 7) with the packed edgeseg and no option for it: `astro dev`, and
// `astro build` served by `astro preview`. The page loads the app's script from a <script> tag, as Astro pages
// do; Astro's own `server.headers` (dev and preview) make the page cross-origin isolated, for WASM threads.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, inject, test } from 'vitest';
import { expectRuntimeFilesCopied } from './expect-payload.js';
import { expectServedPageSegments, ISOLATION_HEADERS, MAIN_JS, makeFrameworkApp, runTool } from './framework-app.js';
import { closeBrowser } from './run-page.js';

const packed = inject('packed');
const ASTRO = 'astro/bin/astro.mjs';
const FILES = {
  'astro.config.mjs': `import { defineConfig } from 'astro/config';
export default defineConfig({ server: { headers: ${JSON.stringify(ISOLATION_HEADERS)} } });
`,
  'src/pages/index.astro': `<html lang="en">
  <head><meta charset="utf-8" /><title>edgeseg in Astro</title></head>
  <body>
    <p id="status">loading</p>
    <script>
      import '../main.js';
    </script>
  </body>
</html>
`,
  'src/main.js': MAIN_JS,
};

afterAll(() => closeBrowser());

describe.each([
  { name: 'Astro 7', framework: 'astro7' as const },
  { name: 'Astro 6', framework: 'astro6' as const },
])('edgeseg in $name', ({ framework }) => {
  let appDir: string;
  beforeAll(() => {
    appDir = makeFrameworkApp(packed, framework, FILES);
  });
  afterAll(() => {
    if (appDir) rmSync(appDir, { recursive: true, force: true });
  });

  test("astro dev: the page segments on two WASM threads: the command line's payload", { timeout: 480_000 }, async () => {
    await expectServedPageSegments(appDir, ASTRO, (port) => ['dev', '--host', '127.0.0.1', '--port', String(port)], packed.cliPayload);
  });

  test(
    "astro build, served by astro preview: the runtime files are copied, and the page segments on two WASM threads: the command line's payload",
    { timeout: 480_000 },
    async () => {
      await runTool(appDir, ASTRO, ['build']);
      expectRuntimeFilesCopied(join(appDir, 'dist'), appDir);
      await expectServedPageSegments(
        appDir,
        ASTRO,
        (port) => ['preview', '--host', '127.0.0.1', '--port', String(port)],
        packed.cliPayload,
      );
    },
  );
});

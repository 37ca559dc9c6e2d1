// Nuxt 4 (on Vite 8) and Nuxt 3 (on Vite 7) with the packed edgeseg and no option for it, each laid out as
// its starter is (Nuxt 4's app in app/, Nuxt 3's at the root): `nuxt dev`, and `nuxt build` served by its own
// server (.output/server/index.mjs). The page loads the app's script on mount. COOP/COEP, for WASM threads:
// Nuxt's `routeRules` headers cover every response of the built server, but in dev Vite serves the app's
// modules and the worker past them (and a worker without COEP does not start on an isolated page), so
// `vite.server.headers` sets them there too.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, inject, test } from 'vitest';
import { expectRuntimeFilesCopied } from './expect-payload.js';
import { expectServedPageSegments, ISOLATION_HEADERS, MAIN_JS, makeFrameworkApp, runTool } from './framework-app.js';
import { closeBrowser } from './run-page.js';

const packed = inject('packed');
const NUXT = 'nuxt/bin/nuxt.mjs';

/** The app's files, its source in `srcDir` ('app/' from Nuxt 4 on). */
const files = (srcDir: string, config: string) => ({
  'nuxt.config.ts': `const isolation = ${JSON.stringify(ISOLATION_HEADERS)};
export default defineNuxtConfig({
${config}  devtools: { enabled: false },
  routeRules: { '/**': { headers: isolation } },
  // In dev, Vite serves the app's modules and the worker itself, past the route rules.
  vite: { server: { headers: isolation } },
});
`,
  [`${srcDir}app.vue`]: `<script setup>
import { onMounted } from 'vue';
onMounted(() => import('./main.js'));
</script>

<template>
  <p id="status">loading</p>
</template>
`,
  [`${srcDir}main.js`]: MAIN_JS,
});

afterAll(() => closeBrowser());

describe.each([
  { name: 'Nuxt 4', framework: 'nuxt4' as const, files: files('app/', "  compatibilityDate: '2026-12-01',\n") },
  { name: 'Nuxt 3', framework: 'nuxt3' as const, files: files('', '') },
])('edgeseg in $name', ({ framework, files }) => {
  let appDir: string;
  beforeAll(() => {
    appDir = makeFrameworkApp(packed, framework, files);
  });
  afterAll(() => {
    if (appDir) rmSync(appDir, { recursive: true, force: true });
  });

  test("nuxt dev: the page segments on two WASM threads: the command line's payload", { timeout: 480_000 }, async () => {
    await expectServedPageSegments(appDir, NUXT, (port) => ['dev', '--host', '127.0.0.1', '--port', String(port)], packed.cliPayload);
  });

  test(
    "nuxt build, served by its server: the runtime files are copied, and the page segments on two WASM threads: the command line's payload",
    { timeout: 480_000 },
    async () => {
      await runTool(appDir, NUXT, ['build']);
      expectRuntimeFilesCopied(join(appDir, '.output', 'public'), appDir);
      await expectServedPageSegments(
        appDir,
        './.output/server/index.mjs',
        () => [],
        packed.cliPayload,
        (port) => ({ HOST: '127.0.0.1', PORT: String(port) }),
      );
    },
  );
});

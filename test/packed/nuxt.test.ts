// Nuxt 4 (on Vite 8) with the packed edgeseg and no option for it, laid out as Nuxt 4's starter is (the app
// in app/): `nuxt dev`, and `nuxt build` served by its own server (.output/server/index.mjs). The page loads
// the app's script on mount. COOP/COEP, for WASM
// threads: Nuxt's `routeRules` headers cover every response of the built server, but in dev Vite serves the
// app's modules and the worker past them (and a worker without COEP does not start on an isolated page), so
// `vite.server.headers` sets them there too.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, inject, test } from 'vitest';
import { expectRuntimeFilesCopied } from './expect-payload.js';
import { expectServedPageSegments, ISOLATION_HEADERS, MAIN_JS, makeFrameworkApp, runTool } from './framework-app.js';
import { closeBrowser } from './run-page.js';

const packed = inject('packed');
const NUXT = 'nuxt/bin/nuxt.mjs';
let appDir: string;

beforeAll(() => {
  appDir = makeFrameworkApp(packed, 'nuxt4', {
    'nuxt.config.ts': `const isolation = ${JSON.stringify(ISOLATION_HEADERS)};
export default defineNuxtConfig({
  compatibilityDate: '2026-12-01',
  devtools: { enabled: false },
  routeRules: { '/**': { headers: isolation } },
  // In dev, Vite serves the app's modules and the worker itself, past the route rules.
  vite: { server: { headers: isolation } },
});
`,
    'app/app.vue': `<script setup>
import { onMounted } from 'vue';
onMounted(() => import('./main.js'));
</script>

<template>
  <p id="status">loading</p>
</template>
`,
    'app/main.js': MAIN_JS,
  });
});
afterAll(async () => {
  await closeBrowser();
  if (appDir) rmSync(appDir, { recursive: true, force: true });
});

describe('edgeseg in Nuxt 4', () => {
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

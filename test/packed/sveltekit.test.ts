// SvelteKit 3 (on Vite 8, the only major it allows) and SvelteKit 2 (on Vite 6, the oldest its Vite plugin
// allows) with the packed edgeseg and no option for it: `vite dev`, and `vite build` with adapter-node run as
// SvelteKit's custom server. The page loads the app's script on mount. COOP/COEP: a `handle` hook (src/hooks.server.js)
// sets them on what SvelteKit renders, but the worker script and the other files that Vite or the adapter
// serve do not pass through hooks, and a worker without COEP does not start on an isolated page: Vite's
// `server.headers` sets them in dev, the custom server in production (SvelteKit's `vite preview` sends
// neither `preview.headers` nor any header of the hook on its static files, so it cannot host threads).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, inject, test } from 'vitest';
import { expectRuntimeFilesCopied } from './expect-payload.js';
import { expectServedPageSegments, ISOLATION_HEADERS, MAIN_JS, makeFrameworkApp, runTool } from './framework-app.js';
import { closeBrowser } from './run-page.js';

const packed = inject('packed');
const VITE = 'vite/bin/vite.js';
const FILES = {
  // SvelteKit's custom-server form of adapter-node's output: its handler behind a server that sets the
  // headers on every response, the static files' included (SvelteKit's hooks see only what it renders).
  'server.js': `import { createServer } from 'node:http';
import { handler } from './build/handler.js';
const isolation = ${JSON.stringify(ISOLATION_HEADERS)};
createServer((req, res) => {
  for (const [name, value] of Object.entries(isolation)) res.setHeader(name, value);
  handler(req, res);
}).listen(Number(process.env.PORT), process.env.HOST);
`,
  'src/hooks.server.js': `const isolation = ${JSON.stringify(ISOLATION_HEADERS)};
export async function handle({ event, resolve }) {
  const response = await resolve(event);
  for (const [name, value] of Object.entries(isolation)) response.headers.set(name, value);
  return response;
}
`,
  'src/app.html': `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><title>edgeseg in SvelteKit</title>%sveltekit.head%</head>
  <body>%sveltekit.body%</body>
</html>
`,
  'src/routes/+page.svelte': `<script>
  import { onMount } from 'svelte';
  onMount(() => {
    import('../lib/main.js');
  });
</script>

<p id="status">loading</p>
`,
  'src/lib/main.js': MAIN_JS,
};

const isolation = `const isolation = ${JSON.stringify(ISOLATION_HEADERS)};`;
/** SvelteKit 3 takes its configuration in its Vite plugin (it refuses a svelte.config.js); SvelteKit 2 in svelte.config.js. */
const CONFIG = {
  sveltekit3: {
    'vite.config.js': `import adapter from '@sveltejs/adapter-node';
import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';
${isolation}
export default defineConfig({
  // No precompression: brotli over the 25 MB of WASM takes minutes on CI.
  plugins: [sveltekit({ adapter: adapter({ precompress: false }) })],
  // The files that Vite serves itself in dev (the worker among them) do not pass through SvelteKit's hooks.
  server: { headers: isolation },
});
`,
  },
  sveltekit2: {
    'svelte.config.js': `import adapter from '@sveltejs/adapter-node';
// No precompression: brotli over the 25 MB of WASM takes minutes on CI.
export default { kit: { adapter: adapter({ precompress: false }) } };
`,
    'vite.config.js': `import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';
${isolation}
// The files that Vite serves itself in dev (the worker among them) do not pass through SvelteKit's hooks.
export default defineConfig({ plugins: [sveltekit()], server: { headers: isolation } });
`,
  },
};

afterAll(() => closeBrowser());

describe.each([
  { name: 'SvelteKit 3 on Vite 8', framework: 'sveltekit3' as const },
  { name: 'SvelteKit 2 on Vite 6', framework: 'sveltekit2' as const },
])('edgeseg in $name', ({ framework }) => {
  let appDir: string;
  beforeAll(() => {
    appDir = makeFrameworkApp(packed, framework, { ...FILES, ...CONFIG[framework] }, 'static');
  });
  afterAll(() => {
    if (appDir) rmSync(appDir, { recursive: true, force: true });
  });

  test("vite dev: the page segments on two WASM threads: the command line's payload", { timeout: 480_000 }, async () => {
    await expectServedPageSegments(
      appDir,
      VITE,
      (port) => ['dev', '--host', '127.0.0.1', '--port', String(port), '--strictPort'],
      packed.cliPayload,
    );
  });

  test(
    "vite build with adapter-node, served by a custom server: the runtime files are copied, and the page segments on two WASM threads: the command line's payload",
    { timeout: 480_000 },
    async () => {
      await runTool(appDir, VITE, ['build']);
      expectRuntimeFilesCopied(join(appDir, 'build', 'client'), appDir);
      await expectServedPageSegments(
        appDir,
        './server.js',
        () => [],
        packed.cliPayload,
        (port) => ({ HOST: '127.0.0.1', PORT: String(port) }),
      );
    },
  );
});

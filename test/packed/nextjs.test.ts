// Next.js 16 (App Router) with the packed edgeseg and no option for it, on both of its bundlers: Turbopack
// (its default) and webpack (`--webpack`), and Next.js 15 on its default, webpack; each `next dev`, and
// `next build` served by `next start`. A client
// component loads the app's script in an effect; next.config's `headers()` makes every response carry
// COOP/COEP, for WASM threads.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, inject, test } from 'vitest';
import { expectRuntimeFilesCopied } from './expect-payload.js';
import { expectServedPageSegments, ISOLATION_HEADERS, MAIN_JS, makeFrameworkApp, runTool } from './framework-app.js';
import type { FrameworkName } from './framework-versions.js';
import { closeBrowser } from './run-page.js';

const packed = inject('packed');
const NEXT = 'next/dist/bin/next';
const FILES = {
  'next.config.mjs': `const isolation = ${JSON.stringify(ISOLATION_HEADERS)};
export default {
  async headers() {
    return [{ source: '/:path*', headers: Object.entries(isolation).map(([key, value]) => ({ key, value })) }];
  },
};
`,
  'app/layout.js': `export default function RootLayout({ children }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
`,
  'app/page.js': `'use client';
import { useEffect } from 'react';

export default function Page() {
  useEffect(() => {
    import('../main.js');
  }, []);
  return <p id="status">loading</p>;
}
`,
  'main.js': MAIN_JS,
};

/** One app per Next.js version, both of Next.js 16's bundlers building the same one. */
const apps = new Map<FrameworkName, string>();

afterAll(async () => {
  await closeBrowser();
  for (const appDir of apps.values()) rmSync(appDir, { recursive: true, force: true });
});

describe.each([
  { name: 'Next.js 16 on Turbopack', framework: 'next16' as const, flags: [] as string[] },
  { name: 'Next.js 16 on webpack', framework: 'next16' as const, flags: ['--webpack'] },
  { name: 'Next.js 15 on webpack', framework: 'next15' as const, flags: [] as string[] },
])('edgeseg in $name', ({ framework, flags }) => {
  let appDir: string;
  beforeAll(() => {
    appDir = apps.get(framework) ?? apps.set(framework, makeFrameworkApp(packed, framework, FILES)).get(framework)!;
  });
  test("next dev: the page segments on two WASM threads: the command line's payload", { timeout: 480_000 }, async () => {
    await expectServedPageSegments(appDir, NEXT, (port) => ['dev', ...flags, '-H', '127.0.0.1', '-p', String(port)], packed.cliPayload);
  });

  test(
    "next build, served by next start: the runtime's WASM is copied, and the page segments on two WASM threads: the command line's payload",
    { timeout: 480_000 },
    async () => {
      await runTool(appDir, NEXT, ['build', ...flags]);
      // Both bundlers minify the JavaScript files they copy; the binaries are as shipped.
      expectRuntimeFilesCopied(join(appDir, '.next', 'static'), appDir, { binariesOnly: true });
      await expectServedPageSegments(appDir, NEXT, (port) => ['start', '-H', '127.0.0.1', '-p', String(port)], packed.cliPayload);
    },
  );
});

// Next.js 16 (App Router) with the packed edgeseg and no option for it, on both of its bundlers: Turbopack
// (its default) and webpack (`--webpack`), each `next dev`, and `next build` served by `next start`. A client
// component loads the app's script in an effect; next.config's `headers()` makes every response carry
// COOP/COEP, for WASM threads.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, inject, test } from 'vitest';
import { expectRuntimeFilesCopied } from './expect-payload.js';
import { expectServedPageSegments, ISOLATION_HEADERS, MAIN_JS, makeFrameworkApp, runTool } from './framework-app.js';
import { closeBrowser } from './run-page.js';

const packed = inject('packed');
const NEXT = 'next/dist/bin/next';
let appDir: string;

beforeAll(() => {
  appDir = makeFrameworkApp(packed, 'next16', {
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
  });
});
afterAll(async () => {
  await closeBrowser();
  if (appDir) rmSync(appDir, { recursive: true, force: true });
});

describe.each([
  { bundler: 'Turbopack', flags: [] as string[] },
  { bundler: 'webpack', flags: ['--webpack'] },
])('edgeseg in Next.js 16 on $bundler', ({ flags }) => {
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

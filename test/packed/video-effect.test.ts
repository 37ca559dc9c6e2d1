// createVideoEffect from the packed package in a fresh Vite app, with no option for the model: the bundled
// people model's files are found as the worker is (Vite copies each `new URL(…, import.meta.url)` file),
// and a canvas's track comes out with the effect, in each engine (and in WebKit as Safari 18 runs it).
import { join } from 'node:path';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { ENGINES } from '../engines/index.js';
import { startStaticServer, type StaticServer } from '../fixtures/static-server.js';
import { closeBrowser, runPage } from './run-page.js';

const { appDir } = inject('packed');
const OUT_DIR = join(appDir, 'out-vite-video');
let site: StaticServer;

beforeAll(async () => {
  await build({
    root: appDir,
    configFile: false,
    logLevel: 'warn',
    build: { outDir: OUT_DIR, emptyOutDir: true, rollupOptions: { input: join(appDir, 'video.html') } },
  });
  site = await startStaticServer(OUT_DIR, { isolate: true });
});
afterAll(async () => {
  await closeBrowser();
  await site?.close();
});

// WebKitGTK twice: as it ships (no track processor: the main-thread path), and with what Safari 18 ships
// turned on (the track itself in the loop's worker).
const CASES = [...ENGINES.map((engine) => ({ engine, safari: false })), { engine: 'webkit' as const, safari: true }];

describe.each(CASES)('createVideoEffect in a Vite production build, in $engine (Safari features: $safari)', ({ engine, safari }) => {
  afterAll(() => closeBrowser(engine));

  test('the bundled people model with zero config; the output track carries the effect (no person: all the colour)', async () => {
    const result = (await runPage(`${site.url}/video.html`, { engine, safari })) as unknown as {
      failed?: unknown;
      console: string[];
      video?: { path: string; frames: number; backend: string; centre: number[]; classes: string[] };
    };
    expect(result.failed, JSON.stringify(result)).toBeUndefined();
    expect(result.video).toMatchObject({ backend: 'wasm', classes: ['background', 'person'] });
    expect(result.video!.frames).toBeGreaterThanOrEqual(3);
    expect(result.video!.path).toBe(engine === 'chromium' || safari ? 'worker' : 'main-thread');
    const [r, g, b] = result.video!.centre;
    expect(Math.abs(r!) + Math.abs(g! - 255) + Math.abs(b!), JSON.stringify(result.video)).toBeLessThan(30);
  });
});

// The demo in Firefox ESR and WebKitGTK (Chromium's own, fuller test is demo.test.ts): the production
// build from Vite's preview server (whose 304s lack COEP, which WebKit once read as a dead worker), a
// sample segmented on wasm with the overlay drawn from the payload, a reload, the camera where the
// engine has a fake one, and a screenshot of each.
import { mkdir, writeFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, preview, type PreviewServer } from 'vite';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { decodeMaskPng, base64ToBytes } from '../../src/payload/index.js';
import { HAS_FAKE_CAMERA, openEngine, SAFARI_FEATURES, type EngineName, type EnginePage } from '../engines/index.js';
import { ROOT } from '../helpers/paths.js';

const ARTIFACTS = join(ROOT, 'test-results', 'demo');
let server: PreviewServer;
let url: string;
let dataDir: string;

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  dataDir = await mkdtemp(join(tmpdir(), 'edgeseg-demo-engines-'));
  process.env.EDGESEG_DATA_DIR = dataDir;
  await build({ configFile: join(ROOT, 'vite.config.ts'), logLevel: 'error' });
  server = await preview({ configFile: join(ROOT, 'vite.config.ts'), preview: { port: 0, strictPort: false }, logLevel: 'error' });
  url = server.resolvedUrls!.local[0]!;
});
afterAll(async () => {
  await new Promise<void>((resolve) => (server ? server.httpServer.close(() => resolve()) : resolve()));
  delete process.env.EDGESEG_DATA_DIR;
  await rm(dataDir, { recursive: true, force: true });
});

/** Resolves once `predicate` (page source, an expression) is true in the page; rejects after `ms`. */
const waitFor = (page: EnginePage, predicate: string, ms = 90_000) =>
  page.evaluate(
    async (source: string, limit: number) => {
      // The predicate is this test's own source, evaluated in the page under test (as Playwright's
      // waitForFunction does with a string): evaluate's functions cannot close over one.
      // eslint-disable-next-line @typescript-eslint/no-implied-eval
      const check = new Function(`return (${source});`) as () => boolean;
      const t0 = Date.now();
      while (!check()) {
        if (Date.now() - t0 > limit) throw new Error(`timed out waiting for ${source}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      return true;
    },
    predicate,
    ms,
  );

interface Shown {
  isolated: boolean;
  backend: string | null;
  runs: number;
  fallbacks: string;
  mask: string;
  classMap: Record<string, string>;
  /** Alpha of the overlay canvas, one value a pixel. */
  alpha: number[];
  size: [number, number];
}
const shown = (page: EnginePage) =>
  page.evaluate((): Shown => {
    const s = (
      window as unknown as {
        edgesegDemo: { backend: string | null; runs: number; payload: { segmentation_mask: string; class_map: Record<string, string> } };
      }
    ).edgesegDemo;
    const c = document.querySelector<HTMLCanvasElement>('#mask-canvas')!;
    const data = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    const alpha: number[] = [];
    for (let i = 3; i < data.length; i += 4) alpha.push(data[i]!);
    return {
      isolated: crossOriginIsolated,
      backend: s.backend,
      runs: s.runs,
      fallbacks: document.querySelector('#fallbacks')?.textContent ?? '',
      mask: s.payload.segmentation_mask,
      classMap: s.payload.class_map,
      alpha,
      size: [c.width, c.height],
    };
  });

/** The overlay is opaque exactly where the payload's mask is not background. */
function expectOverlayIsTheMask(state: Shown): number {
  const mask = decodeMaskPng(base64ToBytes(state.mask));
  expect(state.size).toEqual([mask.width, mask.height]);
  const background = Number(Object.keys(state.classMap).find((k) => state.classMap[k] === 'background'));
  let foreground = 0;
  let wrong = 0;
  for (let i = 0; i < mask.classIds.length; i++) {
    const isForeground = mask.classIds[i] !== background;
    if (isForeground) foreground++;
    if ((state.alpha[i] === 255) !== isForeground) wrong++;
  }
  expect(wrong).toBe(0);
  return foreground;
}

const pngSize = (png: Buffer) => [png.readUInt32BE(16), png.readUInt32BE(20)];

// WebKitGTK twice: as it ships, and with the track features Safari 18 ships turned on (the camera's
// frames then go to a worker, the `worker` path).
const CASES = [
  { engine: 'firefox' as EngineName, safari: false, path: 'main-thread' },
  { engine: 'webkit' as EngineName, safari: false, path: 'main-thread' },
  { engine: 'webkit' as EngineName, safari: true, path: 'worker' },
];

describe.each(CASES)('the demo in $engine (Safari features: $safari)', ({ engine, safari, path }) => {
  let page: EnginePage;
  const name = `${engine}${safari ? '-safari' : ''}`;
  beforeAll(async () => {
    page = await openEngine(engine, { fakeCamera: true, ...(safari ? { webkitArgs: SAFARI_FEATURES } : {}) });
  });
  afterAll(() => page?.close());

  test("segments a sample on wasm (isolated, WebGPU missing) and draws the payload's mask; again after a reload", async () => {
    for (const visit of ['first', 'reload']) {
      await page.goto(url);
      await waitFor(page, 'window.edgesegDemo?.ready === true');
      await waitFor(page, "document.querySelectorAll('#gallery button img').length >= 3");
      await page.evaluate(() => document.querySelector<HTMLElement>('#gallery button:nth-child(3)')!.click());
      await waitFor(page, 'window.edgesegDemo.runs >= 1');
      const state = await shown(page);
      expect(state.isolated).toBe(true);
      // The worker is not taken for dead in any engine: wasm, not the hosted route.
      expect([visit, state.backend]).toEqual([visit, 'wasm']);
      expect(state.fallbacks).toMatch(/webgpu\s*BACKEND_UNAVAILABLE/);
      expect(state.fallbacks).not.toMatch(/WORKER_CRASHED/);
      expect(expectOverlayIsTheMask(state)).toBeGreaterThan(0);
    }
    const png = await page.screenshot();
    await writeFile(join(ARTIFACTS, `${name}-segmented.png`), png);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(pngSize(png)[0]).toBeGreaterThan(600);
  });

  test.runIf(HAS_FAKE_CAMERA[engine])("the camera segments frames continuously (the engine's fake camera)", async () => {
    await page.goto(url);
    await waitFor(page, 'window.edgesegDemo?.ready === true');
    await page.evaluate(() => document.querySelector<HTMLElement>('#camera-button')!.click());
    await waitFor(page, 'window.edgesegDemo.fps >= 1', 60_000);
    expect(await page.evaluate(() => document.querySelector('#fps')!.textContent)).toMatch(/\d+ frames\/s/);
    expect(await page.evaluate(() => (window as unknown as { edgesegDemo: { video: { path: string } } }).edgesegDemo.video.path)).toBe(
      path,
    );
    await writeFile(join(ARTIFACTS, `${name}-camera.png`), await page.screenshot());
    // Clicked after the script returns (WebKitGTK's driver could not read back a script whose click stopped its mock camera).
    await page.evaluate(() => void setTimeout(() => document.querySelector<HTMLElement>('#camera-button')!.click()));
    await waitFor(page, "document.querySelector('#camera-button').getAttribute('aria-pressed') === 'false'", 10_000);
  });
});

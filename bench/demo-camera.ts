// The demo's live mode (createVideoEffect) in Chromium with a fake 640×480 camera: output frames/s, frame-in → frame-out latency
// and dropped frames, per effect.
// Usage: npx tsx bench/demo-camera.ts [--seconds 8] [--camera-fps 60] [--model people/1] [--compositor auto|webgl2|canvas2d]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { createServer } from 'vite';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../test/chromium.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '8' },
    'camera-fps': { type: 'string', default: '60' },
    model: { type: 'string' },
    compositor: { type: 'string', default: 'auto' },
  },
});
const seconds = Number(values.seconds);
const root = join(import.meta.dirname, '..');

const dataDir = await mkdtemp(join(tmpdir(), 'edgeseg-bench-demo-'));
process.env.EDGESEG_DATA_DIR = dataDir;
const server = await createServer({ configFile: join(root, 'vite.config.ts'), server: { port: 0, strictPort: false }, logLevel: 'error' });
await server.listen();
// The camera runs faster than the target, so that the figure is the demo's limit, not the camera's.
const browser = await chromium.launch({
  executablePath: CHROMIUM_PATH,
  args: [...CHROMIUM_ARGS, `--use-fake-device-for-media-stream=fps=${values['camera-fps']}`, '--use-fake-ui-for-media-stream'],
});
try {
  const context = await browser.newContext({ permissions: ['camera'], viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${server.resolvedUrls!.local[0]!}?compositor=${values.compositor}`);
  await page.waitForFunction(() => (window as unknown as { edgesegDemo: { ready: boolean } }).edgesegDemo?.ready, null, {
    timeout: 120_000,
  });
  if (values.model) {
    const [project, version] = values.model.split('/');
    await page.selectOption('#project-select', project!);
    await page.selectOption('#version-select', version!);
    await page.waitForFunction(() => (window as unknown as { edgesegDemo: { ready: boolean } }).edgesegDemo.ready, null, {
      timeout: 120_000,
    });
  }
  const model = await page.evaluate(() => (window as unknown as { edgesegDemo: { model: unknown; backend: string } }).edgesegDemo);
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  await page.click('#camera-button');
  const frames = () => page.evaluate(() => (window as unknown as { edgesegDemo: { frames: number } }).edgesegDemo.frames);
  console.log(
    `model ${JSON.stringify(model.model)} on ${model.backend}; Chromium ${browser.version()}, ${cores} cores; compositor ${values.compositor}; fake camera 640×480 at ${values['camera-fps']} frames/s; ${seconds} s an effect`,
  );
  console.log('| effect | frames/s | latency p50 / p95 (ms) | dropped |\n|---|---|---|---|');
  for (const effect of ['overlay', 'blur', 'color', 'image', 'cutout']) {
    // The compositor is made on the first effect's frame: report the one the page picked.
    await page.selectOption('#effect-select', effect);
    await page.waitForTimeout(1500);
    const [f0, t0] = [await frames(), performance.now()];
    await page.waitForTimeout(seconds * 1000);
    const [f1, t1] = [await frames(), performance.now()];
    const { compositor: kind, video } = await page.evaluate(
      () =>
        (
          window as unknown as {
            edgesegDemo: {
              compositor: string | null;
              video: { latency: { p50: number; p95: number }; dropped: number; path: string } | null;
            };
          }
        ).edgesegDemo,
    );
    const latency = video ? `${video.latency.p50.toFixed(0)} / ${video.latency.p95.toFixed(0)}` : '—';
    console.log(
      `| ${effect}${effect === 'overlay' ? '' : ` (${kind})`} | ${((1000 * (f1 - f0)) / (t1 - t0)).toFixed(1)} | ${latency} | ${video?.dropped ?? '—'} (${video?.path ?? ''}) |`,
    );
  }
  await page.screenshot({ path: join(root, 'test-results', 'demo', 'bench-camera.png') });
} finally {
  await browser.close();
  await server.close();
  await rm(dataDir, { recursive: true, force: true });
}

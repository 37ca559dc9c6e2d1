import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build, createServer, preview, type PreviewServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { decodeMaskPng, base64ToBytes } from '../../src/payload/index.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../chromium.js';
import { parseJson, type ErrorAnswer } from '../helpers/json.js';
import { ROOT } from '../helpers/paths.js';
import { rawSocket } from '../helpers/raw-http.js';
import { startStaticServer } from '../fixtures/static-server.js';

const ARTIFACTS = join(ROOT, 'test-results', 'demo');
let browser: Browser;
let dataDir: string;

beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
  dataDir = await mkdtemp(join(tmpdir(), 'edgeseg-demo-'));
  process.env.EDGESEG_DATA_DIR = dataDir;
  browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [...CHROMIUM_ARGS, '--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'],
  });
});
afterAll(async () => {
  await browser?.close();
  delete process.env.EDGESEG_DATA_DIR;
  await rm(dataDir, { recursive: true, force: true });
});

interface DemoState {
  ready: boolean;
  runs: number;
  fps: number;
  frames: number;
  backend: string | null;
  model: { project: string; version: number; packageUrl?: string } | null;
  compositor: string | null;
  shown: { colors: string[] } | null;
  payload: { segmentation_mask: string; class_map: Record<string, string>; image: { width: number; height: number } } | null;
}
const demoState = (page: Page) =>
  page.evaluate(() => {
    const s = (window as unknown as { edgesegDemo: DemoState }).edgesegDemo;
    return {
      ready: s.ready,
      runs: s.runs,
      fps: s.fps,
      frames: s.frames,
      backend: s.backend,
      model: s.model,
      compositor: s.compositor,
      colors: s.shown?.colors ?? null,
      payload: s.payload,
    };
  });
const classNamesOf = (payload: NonNullable<DemoState['payload']>) =>
  Object.keys(payload.class_map)
    .sort((a, b) => Number(a) - Number(b))
    .map((k) => payload.class_map[k]!);
const SHAPES_CLASSES = ['background', 'circle', 'rectangle', 'triangle', 'star'];
const PEOPLE_CLASSES = ['background', 'person'];
const PEOPLE_SAMPLES = join(ROOT, 'models', 'people', 'samples');
const waitFor = (page: Page, predicate: string, timeout = 90_000) => page.waitForFunction(predicate, null, { timeout });

/** The overlay canvas's pixels must be the payload's mask in the class colours (transparent for background). */
async function expectOverlayMatchesPayload(page: Page): Promise<number> {
  const { payload } = await demoState(page);
  const mask = decodeMaskPng(base64ToBytes(payload!.segmentation_mask));
  const names = Object.keys(payload!.class_map)
    .sort((a, b) => Number(a) - Number(b))
    .map((k) => payload!.class_map[k]!);
  const background = names.indexOf('background');
  const pixels = await page.evaluate(() => {
    const c = document.querySelector<HTMLCanvasElement>('#mask-canvas')!;
    return { width: c.width, height: c.height, data: Array.from(c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data) };
  });
  expect([pixels.width, pixels.height]).toEqual([mask.width, mask.height]);
  // Shapes is the bundled package as version 2: every class is drawn in that package's COLORS. Other
  // models: one distinct colour a class.
  const { colors } = await demoState(page);
  if (names.join() === SHAPES_CLASSES.join()) {
    const env = JSON.parse(await readFile(join(ROOT, 'models', 'shapes', 'package', 'environment.json'), 'utf8')) as {
      COLORS: Record<string, string>;
    };
    expect(colors).toEqual(names.map((name) => env.COLORS[name]!.toLowerCase()));
  }
  expect(new Set(colors).size).toBe(names.length);
  const expected = colors!.map((hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(','));
  let foreground = 0;
  for (let i = 0; i < mask.classIds.length; i++) {
    const id = mask.classIds[i]!;
    const [r, g, b, a] = pixels.data.slice(i * 4, i * 4 + 4);
    if (id === background) {
      expect(a).toBe(0);
      continue;
    }
    foreground++;
    expect(a).toBe(255);
    expect(`${r},${g},${b}`).toBe(expected[id]);
  }
  return foreground / mask.classIds.length;
}

async function smoke(page: Page, url: string, label: string): Promise<void> {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await waitFor(page, 'window.edgesegDemo?.ready === true');
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  await page.waitForSelector('#gallery button img');
  await page.click('#gallery button:nth-child(3)');
  await waitFor(page, 'window.edgesegDemo.runs >= 1');
  const state = await demoState(page);
  expect(state.backend).toBe('wasm');
  expect(await page.textContent('#fallbacks')).toMatch(/webgpu.*BACKEND_UNAVAILABLE/);
  expect(await page.textContent('#timings')).toMatch(/preprocess.*run.*postprocess/s);
  await expectOverlayMatchesPayload(page);
  await page.screenshot({ path: join(ARTIFACTS, `${label}-segmented.png`), fullPage: true });
  expect(errors).toEqual([]);
}

/** Picks a project and version in the picker and waits for that model to be ready (and re-run, if an image is up). */
async function pickModel(page: Page, project: string, version: number): Promise<void> {
  const { runs, payload } = await demoState(page);
  await page.selectOption('#project-select', project);
  await page.selectOption('#version-select', String(version));
  await waitFor(
    page,
    `window.edgesegDemo.ready && window.edgesegDemo.model.project === ${JSON.stringify(project)} && window.edgesegDemo.model.version === ${version}`,
  );
  if (payload) await waitFor(page, `window.edgesegDemo.runs > ${runs} && window.edgesegDemo.backend !== null`);
}

/**
 * The picker opens on people v1 and offers `offered`; switching to shapes and back changes the mask's
 * classes (and the gallery's images, where `gallery` gives each project's count).
 */
async function expectPickerRoundTrip(
  page: Page,
  offered: Record<string, string[]>,
  gallery?: { people: number; shapes: number },
): Promise<void> {
  const galleryHas = (n: number) => page.waitForFunction((count) => document.querySelectorAll('#gallery button').length === count, n);
  expect((await demoState(page)).model).toMatchObject({ project: 'people', version: 1 });
  const options = async (select: string) => page.$$eval(`${select} option`, (os) => os.map((o) => (o as HTMLOptionElement).value));
  expect(await options('#project-select')).toEqual(Object.keys(offered));
  expect(await options('#version-select')).toEqual(offered.people);
  expect(classNamesOf((await demoState(page)).payload!)).toEqual(PEOPLE_CLASSES);
  const people = (await demoState(page)).payload!;

  await pickModel(page, 'shapes', 2);
  expect(await options('#version-select')).toEqual(offered.shapes);
  const shapes = (await demoState(page)).payload!;
  expect(classNamesOf(shapes)).toEqual(SHAPES_CLASSES);
  expect(shapes.image).toEqual(people.image);
  expect(await page.$$eval('#legend tr', (trs) => trs.map((tr) => (tr as HTMLTableRowElement).cells[0]!.textContent.trim()))).toEqual(
    SHAPES_CLASSES,
  );
  await expectOverlayMatchesPayload(page);
  if (gallery) await galleryHas(gallery.shapes);

  await pickModel(page, 'people', 1);
  expect((await demoState(page)).payload).toEqual(people);
  if (gallery) await galleryHas(gallery.people);
}

interface Pixels {
  width: number;
  height: number;
  effect: Uint8Array;
  original: Uint8Array;
}

/** The effect canvas and the image under it, as RGBA (unpremultiplied, as a 2D canvas reads them). */
async function effectPixels(page: Page): Promise<Pixels> {
  const read = await page.evaluate(() => {
    const encode = (canvas: HTMLCanvasElement) => {
      const copy = new OffscreenCanvas(canvas.width, canvas.height);
      const ctx = copy.getContext('2d')!;
      ctx.drawImage(canvas, 0, 0);
      const bytes = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
      let text = '';
      for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      return btoa(text);
    };
    const effect = document.querySelector<HTMLCanvasElement>('#effect-canvas')!;
    return {
      width: effect.width,
      height: effect.height,
      effect: encode(effect),
      original: encode(document.querySelector<HTMLCanvasElement>('#image-canvas')!),
    };
  });
  return {
    width: read.width,
    height: read.height,
    effect: new Uint8Array(Buffer.from(read.effect, 'base64')),
    original: new Uint8Array(Buffer.from(read.original, 'base64')),
  };
}

/**
 * Each pixel's distance (in pixels, chessboard) to the nearest pixel on the other side of the
 * subject/background boundary: what the feather may touch is near it, the rest must be exact.
 */
function boundaryDistance(subject: boolean[], width: number, height: number): Uint16Array {
  const far = 0xffff;
  const d = new Uint16Array(width * height).fill(far);
  // A pixel with a 4-neighbour on the other side is on the boundary.
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const other = (j: number) => subject[j] !== subject[i];
      if ((x > 0 && other(i - 1)) || (x < width - 1 && other(i + 1)) || (y > 0 && other(i - width)) || (y < height - 1 && other(i + width)))
        d[i] = 0;
    }
  }
  for (const [from, to, step] of [
    [0, height, 1],
    [height - 1, -1, -1],
  ] as const) {
    for (let y = from; y !== to; y += step) {
      for (let x = step > 0 ? 0 : width - 1; x >= 0 && x < width; x += step) {
        const i = y * width + x;
        for (const [dx, dy] of [
          [-step, 0],
          [-step, -step],
          [0, -step],
          [step, -step],
        ] as const) {
          const [nx, ny] = [x + dx, y + dy];
          if (nx >= 0 && nx < width && ny >= 0 && ny < height) d[i] = Math.min(d[i]!, d[ny * width + nx]! + 1);
        }
      }
    }
  }
  return d;
}

/** The photo's soft alpha that the photo effects draw, once it has come (it follows the class ids). */
async function softAlphaOf(page: Page): Promise<Uint8Array> {
  await waitFor(page, 'window.edgesegDemo.softEdges === true');
  const encoded = await page.evaluate(() => {
    const alpha = (window as unknown as { edgesegDemo: { softAlpha: Uint8Array } }).edgesegDemo.softAlpha;
    let binary = '';
    for (let i = 0; i < alpha.length; i += 8192) binary += String.fromCharCode(...alpha.subarray(i, i + 8192));
    return btoa(binary);
  });
  return new Uint8Array(Buffer.from(encoded, 'base64'));
}

/**
 * Applies each effect to the segmented photo on screen and checks its pixels against the photo and its
 * soft alpha (which the effects draw): the subject where the alpha is 255, the background where it is 0.
 */
async function expectEffects(page: Page, label: string, compositor: 'webgl2' | 'canvas2d'): Promise<void> {
  const { payload } = await demoState(page);
  const mask = decodeMaskPng(base64ToBytes(payload!.segmentation_mask));
  const background = classNamesOf(payload!).indexOf('background');
  // An effect asks for the photo's soft alpha; the class overlay does not need it.
  await page.selectOption('#effect-select', 'blur');
  const alpha = await softAlphaOf(page);
  expect(alpha.length).toBe(mask.width * mask.height);
  const subject = Array.from(alpha, (a) => a === 255);
  // Pixels at least 8 px from any pixel that is not wholly subject (wholly background): the feather is
  // ~2σ wide (σ = max(1.5, size / 320) px) on a mask feathered at half size, and 8 px clears it.
  const toPartial = boundaryDistance(subject, mask.width, mask.height);
  const toSubject = boundaryDistance(
    Array.from(alpha, (a) => a > 0),
    mask.width,
    mask.height,
  );
  const distance = Uint16Array.from(alpha, (a, i) => (a === 255 ? toPartial[i]! : a === 0 ? toSubject[i]! : 0));
  const inner = (i: number) => distance[i]! > 8;
  // The soft alpha and the class ids agree on which side of one half a pixel is, nearly everywhere.
  let agree = 0;
  for (let i = 0; i < alpha.length; i++) if (alpha[i]! >= 128 === (mask.classIds[i] !== background)) agree++;
  expect(agree / alpha.length).toBeGreaterThan(0.99);
  const subjectShare = subject.filter(Boolean).length / subject.length;
  expect(subjectShare).toBeGreaterThan(0.05);
  expect(subjectShare).toBeLessThan(0.95);

  const check = async (effect: string, setUp?: () => Promise<void>) => {
    await page.selectOption('#effect-select', effect);
    await setUp?.();
    await waitFor(page, 'window.edgesegDemo.softEdges === true');
    expect(await page.isVisible('#effect-canvas')).toBe(true);
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('#image-canvas')!).visibility)).toBe('hidden');
    expect((await demoState(page)).compositor).toBe(compositor);
    await page.screenshot({ path: join(ARTIFACTS, `${label}-${compositor}-${effect}.png`) });
    const px = await effectPixels(page);
    expect([px.width, px.height]).toEqual([mask.width, mask.height]);
    let subjectOff = 0;
    let backgroundChanged = 0;
    let backgroundInner = 0;
    for (let i = 0; i < subject.length; i++) {
      if (!inner(i)) continue;
      const o = i * 4;
      if (subject[i]) {
        for (let c = 0; c < 4; c++) subjectOff = Math.max(subjectOff, Math.abs(px.effect[o + c]! - px.original[o + c]!));
      } else {
        backgroundInner++;
        if (
          Math.abs(px.effect[o]! - px.original[o]!) +
            Math.abs(px.effect[o + 1]! - px.original[o + 1]!) +
            Math.abs(px.effect[o + 2]! - px.original[o + 2]!) >
          6
        )
          backgroundChanged++;
      }
    }
    // The subject, away from its edge, is the photo itself.
    expect(subjectOff).toBe(0);
    return { px, backgroundChanged: backgroundChanged / backgroundInner };
  };

  // Blur: the background is not the photo any more (a blurred copy of it), the subject is.
  const blur = await check('blur');
  expect(blur.backgroundChanged).toBeGreaterThan(0.3);

  // Colour: the background is the colour, to the unit.
  const color = await check('color', () => page.locator('#effect-color').fill('#123456'));
  for (let i = 0; i < subject.length; i++) {
    if (inner(i) && !subject[i]) expect(Array.from(color.px.effect.subarray(i * 4, i * 4 + 4))).toEqual([0x12, 0x34, 0x56, 255]);
  }

  // Image: the default backdrop (a blue radial gradient) replaces the background.
  const image = await check('image');
  expect(image.backgroundChanged).toBeGreaterThan(0.9);

  // Cutout: the background is transparent; the edge fades (the soft alpha, feathered: not a hard step).
  const cutout = await check('cutout');
  const hardEdge = boundaryDistance(
    Array.from(mask.classIds, (c) => c !== background),
    mask.width,
    mask.height,
  );
  let partial = 0;
  let boundary = 0;
  for (let i = 0; i < subject.length; i++) {
    const shown = cutout.px.effect[i * 4 + 3]!;
    if (inner(i) && !subject[i]) expect(shown).toBe(0);
    if (hardEdge[i] === 0) boundary++;
    if (shown > 0 && shown < 255) {
      partial++;
      // Partial alpha only near the boundary.
      expect(distance[i]).toBeLessThanOrEqual(8);
    }
  }
  // Every boundary pixel of the class ids has a few pixels of ramp across it.
  expect(partial).toBeGreaterThan(1.5 * boundary);

  // Back to the class overlay.
  await page.selectOption('#effect-select', 'overlay');
  expect(await page.isVisible('#effect-canvas')).toBe(false);
}

describe('the demo on the dev server (npm start)', () => {
  let server: ViteDevServer;
  let url: string;
  beforeAll(async () => {
    server = await createServer({ configFile: join(ROOT, 'vite.config.ts'), server: { port: 0, strictPort: false }, logLevel: 'error' });
    await server.listen();
    url = server.resolvedUrls!.local[0]!;
  });
  afterAll(() => server?.close());

  test('a connection that sends half a request and waits is closed with a JSON 408 near the 10 s deadline; others are answered meanwhile', async () => {
    const { port } = new URL(url);
    const started = performance.now();
    // Headers never finished (a body shorter than announced is held to the 120 s request deadline).
    const halves = [
      'GET /api/ HTTP/1.1\r\nHost: 127.0.0.1\r\n',
      `POST /api/edgeseg-demo/people/search HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 20\r\n`,
    ];
    const answers = halves.map((half) => rawSocket(url, half));
    // While they hang, the page and the platform answer, before either half-request is closed.
    expect((await fetch(url)).status).toBe(200);
    expect((await fetch(new URL('/api/local-key', url))).status).toBe(200);
    const answeredAt = performance.now();
    for (const { status, body, closedAt } of await Promise.all(answers)) {
      expect(status).toBe('HTTP/1.1 408 Request Timeout');
      expect(parseJson<ErrorAnswer>(body).error.code).toBe('RequestTimeout');
      expect(closedAt).toBeGreaterThan(answeredAt);
      // Node's own defaults would hold the first for 60 s and the second for 300 s.
      expect(closedAt - started).toBeGreaterThan(9_000);
      expect(closedAt - started).toBeLessThan(30_000);
    }
  }, 60_000);

  test("segments a sample; the overlay is the payload's mask; switches confidence, backend, compares with hosted", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await smoke(page, url, 'dev');
    const { payload: local } = await demoState(page);

    // Confidence 100: pixels below it turn to background.
    const before = await expectOverlayMatchesPayload(page);
    await page.locator('#confidence').fill('100');
    await waitFor(page, 'window.edgesegDemo.runs >= 2');
    const after = await expectOverlayMatchesPayload(page);
    expect(after).toBeLessThan(before);
    await page.locator('#confidence').fill('50');
    await waitFor(page, 'window.edgesegDemo.runs >= 3');

    // Compare with the hosted route: the same shared pipeline, the same classes.
    await page.click('#compare-button');
    await page.waitForFunction(() => /% of/.test(document.querySelector('#compare-text')!.textContent ?? ''));
    expect(await page.textContent('#compare-text')).toMatch(/^100\.000% of \d+ pixels/);
    await page.screenshot({ path: join(ARTIFACTS, 'dev-compare.png'), fullPage: true });

    // Backend: hosted.
    await page.selectOption('#backend-select', 'hosted');
    await waitFor(page, 'window.edgesegDemo.backend === "hosted" && window.edgesegDemo.runs >= 4');
    expect((await demoState(page)).payload).toEqual(local);
    expect(await page.textContent('#backend-badge')).toBe('hosted');
    await page.selectOption('#backend-select', 'wasm');
    await waitFor(page, 'window.edgesegDemo.backend === "wasm" && window.edgesegDemo.runs >= 5');
    await page.close();
  });

  test('legend shares, hover, opacity and both downloads agree with the payload; a picked file is segmented', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 }, acceptDownloads: true });
    await smoke(page, url, 'dev-view');
    const { payload } = await demoState(page);
    const mask = decodeMaskPng(base64ToBytes(payload!.segmentation_mask));
    const names = Object.keys(payload!.class_map)
      .sort((a, b) => Number(a) - Number(b))
      .map((k) => payload!.class_map[k]!);

    // Legend: one row a class, in class_map order, with its share of the mask's pixels.
    const counts = names.map((_, id) => mask.classIds.filter((c) => c === id).length);
    const rows = await page.$$eval('#legend tr', (trs) =>
      trs.map((tr) => [(tr as HTMLTableRowElement).cells[0]!.textContent.trim(), tr.querySelector('.share')!.textContent]),
    );
    expect(rows).toEqual(names.map((name, id) => [name, `${((100 * counts[id]!) / mask.classIds.length).toFixed(1)}%`]));

    // Hover: the tip names the class of the mask pixel under the pointer.
    const canvas = page.locator('#mask-canvas');
    await canvas.scrollIntoViewIfNeeded();
    const box = (await canvas.boundingBox())!;
    // The canvas shows the image scaled to fit (object-fit: contain), centred in its box.
    const scale = Math.min(box.width / mask.width, box.height / mask.height);
    const left = (box.width - mask.width * scale) / 2;
    const top = (box.height - mask.height * scale) / 2;
    const foreground = mask.classIds.findIndex((c) => names[c] !== 'background');
    for (const index of [mask.width * Math.floor(mask.height / 2) + 3, foreground]) {
      const [x, y] = [index % mask.width, Math.floor(index / mask.width)];
      await canvas.hover({ position: { x: left + (x + 0.5) * scale, y: top + (y + 0.5) * scale }, force: true });
      expect(await page.textContent('#hover-tip')).toBe(`${names[mask.classIds[index]!]} (${x}, ${y})`);
    }

    // Opacity: the slider sets the overlay's opacity.
    await page.locator('#opacity').fill('25');
    expect(await page.$eval('#mask-canvas', (c) => getComputedStyle(c).opacity)).toBe('0.25');
    expect(await page.textContent('#opacity-out')).toBe('25%');

    // Downloads: the payload JSON and the mask PNG, byte for byte what the page holds.
    const [json] = await Promise.all([page.waitForEvent('download'), page.click('#download-json')]);
    expect(JSON.parse(await readFile(await json.path(), 'utf8'))).toEqual(payload);
    const [png] = await Promise.all([page.waitForEvent('download'), page.click('#download-png')]);
    expect(decodeMaskPng(new Uint8Array(await readFile(await png.path()))).classIds).toEqual(mask.classIds);

    // File picker: a sample picked from disk is segmented at its own size.
    const manifest = JSON.parse(await readFile(join(ROOT, 'models', 'shapes', 'samples', 'manifest.json'), 'utf8')) as {
      images: { file: string; width: number; height: number }[];
    };
    const picked = manifest.images.find((i) => i.width !== payload!.image.width || i.height !== payload!.image.height)!;
    const runs = (await demoState(page)).runs;
    await page.setInputFiles('#file-input', join(ROOT, 'models', 'shapes', 'samples', picked.file));
    await waitFor(page, `window.edgesegDemo.runs > ${runs}`);
    expect((await demoState(page)).payload!.image).toEqual({ width: picked.width, height: picked.height });
    await expectOverlayMatchesPayload(page);
    await page.close();
  });

  test("opens on people v1 from the platform's catalog; the picker switches to shapes and back; the gallery shows the people photos", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await smoke(page, url, 'dev-people');
    expect((await page.$$eval('#gallery button', (bs) => bs.map((b) => (b as HTMLElement).dataset.id))).sort()).toEqual([
      'people-astronaut',
      'people-camera',
      'people-grace-hopper',
    ]);
    await expectPickerRoundTrip(page, { shapes: ['2'], people: ['1', '2'] }, { people: 3, shapes: 12 });
    await page.close();
  });

  test('search pages through searchAll; synthetic images show the provider error; catalog gives export links', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(url);
    await waitFor(page, 'window.edgesegDemo?.ready === true');
    // Search and the catalog below work on the picked project: shapes (72 annotated images).
    await pickModel(page, 'shapes', 2);
    await page.click('#tab-search');
    await page.fill('#s-prompt', 'star');
    await page.fill('#s-limit', '5');
    await page.click('#search-form button[type=submit]');
    await page.waitForFunction(() => document.querySelectorAll('#search-results button').length === 5);
    expect(await page.textContent('#search-summary')).toBe('72 image(s) match; showing 5');
    await page.click('#search-more');
    await page.waitForFunction(() => document.querySelectorAll('#search-results button').length === 10);
    expect(await page.textContent('#search-summary')).toBe('72 image(s) match; showing 10');
    await page.screenshot({ path: join(ARTIFACTS, 'dev-search.png'), fullPage: true });

    await page.click('#tab-synthetic');
    await page.fill('#g-prompt', 'a blue star');
    await page.click('#synthetic-form button[type=submit]');
    await page.waitForSelector('#synthetic-result.error');
    expect(await page.textContent('#synthetic-result')).toMatch(
      /InvalidRequestError.*no image provider key is configured[\s\S]*hint: set it in the workspace settings/,
    );

    await page.click('#tab-catalog');
    await page.click('#cat-load');
    await page.click('#cat-projects button:has-text("shapes")');
    await page.click('#cat-versions li:nth-child(2) button');
    await page.click('#cat-detail button');
    const link = await page.waitForSelector('#cat-detail a');
    expect(await link.getAttribute('href')).toMatch(
      /\/api\/exports\/[0-9a-f]+\/shapes-2-png-mask-semantic\.zip\?expires=\d+&sig=[0-9a-f]{64}$/,
    );

    // A key that no client takes is refused in the key panel, and not stored: the page loads again.
    await page.click('#tab-key');
    await page.fill('#api-key', '');
    await page.click('#key-form button[type=submit]');
    await page.waitForSelector('#key-result.error');
    expect(await page.textContent('#key-result')).toMatch(/InvalidRequestError.*apiKey is required/);
    await page.reload();
    await waitFor(page, 'window.edgesegDemo?.ready === true');
    await page.close();
  });

  test('works with the keyboard, and on a phone-sized viewport', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await page.goto(url);
    await waitFor(page, 'window.edgesegDemo?.ready === true');
    await page.waitForSelector('#gallery button img');
    // Keyboard: focus a sample and press Enter.
    await page.focus('#gallery button:nth-child(1)');
    await page.keyboard.press('Enter');
    await waitFor(page, 'window.edgesegDemo.runs >= 1');
    // Tabs move with the arrow keys.
    await page.focus('#tab-key');
    await page.keyboard.press('ArrowRight');
    expect(await page.getAttribute('#tab-catalog', 'aria-selected')).toBe('true');
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth <= window.innerWidth + 1)).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'dev-phone.png'), fullPage: true });
    await page.close();
  });

  test('camera live mode segments frames continuously with the people model, with an effect, and shows frames per second', async () => {
    const context = await browser.newContext({ permissions: ['camera'], viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    await page.goto(url);
    await waitFor(page, 'window.edgesegDemo?.ready === true');
    await page.click('#camera-button');
    await waitFor(page, 'window.edgesegDemo.fps >= 2', 60_000);
    expect((await demoState(page)).model).toMatchObject({ project: 'people', version: 1 });
    // The library's video effect draws the camera: its output track plays on the stage at the camera's size.
    expect(await page.$eval('#camera-output', (v) => [(v as HTMLVideoElement).videoWidth, (v as HTMLVideoElement).videoHeight])).toEqual([
      640, 480,
    ]);
    const [onStage, inTimings] = await page.evaluate(() => [
      document.querySelector('#stage-fps')!.textContent,
      document.querySelector('#fps')!.textContent,
    ]);
    const counter = Number(/^(\d+) frames\/s$/.exec(onStage ?? '')?.[1]);
    expect(counter).toBeGreaterThanOrEqual(1);
    expect(inTimings).toBe(onStage);
    // An effect: frames keep coming, with the effect. The fake camera has no person: everything is
    // background, so the colour fills the frame.
    await page.selectOption('#effect-select', 'color');
    await page.locator('#effect-color').fill('#00ff00');
    const frames = (await demoState(page)).frames;
    await waitFor(page, `window.edgesegDemo.frames >= ${frames + 3}`, 60_000);
    await page.evaluate(
      () => new Promise((resolve) => document.querySelector<HTMLVideoElement>('#camera-output')!.requestVideoFrameCallback(resolve)),
    );
    const center = await page.evaluate(() => {
      const v = document.querySelector<HTMLVideoElement>('#camera-output')!;
      const copy = new OffscreenCanvas(v.videoWidth, v.videoHeight).getContext('2d')!;
      copy.drawImage(v, 0, 0);
      const mask = (
        window as unknown as { edgesegDemo: { mask: { classIds: Uint8Array; width: number; height: number; background: number } } }
      ).edgesegDemo.mask;
      // The last frame's mask (at the network's resolution), at the centre.
      const id = mask.classIds[(mask.height >> 1) * mask.width + (mask.width >> 1)];
      const subject = mask.classIds.filter((k) => k !== mask.background).length / mask.classIds.length;
      // Green-dominant pixels of the whole frame: the colour replaces what the model calls background, with
      // feathered edges and a probability smoothed over frames (so a pixel may keep a little of the camera).
      const all = copy.getImageData(0, 0, v.videoWidth, v.videoHeight).data;
      let green = 0;
      for (let i = 0; i < all.length; i += 4) if (all[i + 1]! - all[i]! > 100 && all[i + 1]! - all[i + 2]! > 100) green++;
      return {
        id,
        background: mask.background,
        subject,
        green: green / (all.length / 4),
        rgba: [...copy.getImageData(v.videoWidth / 2, v.videoHeight / 2, 1, 1).data],
      };
    });
    // Chromium's fake camera shows a test pattern, no person: the people model finds (almost) none.
    expect(center.subject).toBeLessThan(0.05);
    expect(center.id).toBe(center.background);
    const [r, g, b] = center.rgba;
    expect(g! - r! > 100 && g! - b! > 100, JSON.stringify(center.rgba)).toBe(true);
    expect(center.green).toBeGreaterThan(0.9);
    await page.screenshot({ path: join(ARTIFACTS, 'dev-camera.png') });
    // "The newest, at once": the camera starts again with waitForMask: false, every frame after the first
    // is shown at once on the newest mask (carried), and the effect stays.
    await page.selectOption('#wait-for-mask', 'false');
    await waitFor(page, '(v => v !== null && v.frames >= 5 && v.carried >= v.frames - 1)(window.edgesegDemo.video)', 60_000);
    await page.evaluate(
      () => new Promise((resolve) => document.querySelector<HTMLVideoElement>('#camera-output')!.requestVideoFrameCallback(resolve)),
    );
    const [r2, g2, b2] = await page.evaluate(() => {
      const v = document.querySelector<HTMLVideoElement>('#camera-output')!;
      const copy = new OffscreenCanvas(v.videoWidth, v.videoHeight).getContext('2d')!;
      copy.drawImage(v, 0, 0);
      return [...copy.getImageData(v.videoWidth / 2, v.videoHeight / 2, 1, 1).data];
    });
    expect(g2! - r2! > 100 && g2! - b2! > 100, String([r2, g2, b2])).toBe(true);
    expect(await page.$eval('#timings', (t) => t.textContent)).toContain('masks');
    await page.selectOption('#effect-select', 'overlay');
    await page.click('#camera-button');
    expect(await page.getAttribute('#camera-button', 'aria-pressed')).toBe('false');
    await context.close();
  });
});

describe('the production build (npm run build) from a static server with COOP/COEP', () => {
  let server: PreviewServer;
  beforeAll(async () => {
    await build({ configFile: join(ROOT, 'vite.config.ts'), logLevel: 'error' });
    server = await preview({ configFile: join(ROOT, 'vite.config.ts'), preview: { port: 0, strictPort: false }, logLevel: 'error' });
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.httpServer.close(() => resolve()));
  });

  test("the preview server carries the platform's connection timeouts", () => {
    const http = server.httpServer as { headersTimeout?: number; requestTimeout?: number };
    expect([http.headersTimeout, http.requestTimeout]).toEqual([10_000, 120_000]);
  });

  test('passes the same smoke test', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await smoke(page, server.resolvedUrls!.local[0]!, 'build');
    await page.close();
  });

  test('from a plain static server with COOP/COEP and no platform: opens on the bundled people model, the picker switches to shapes and back, each effect renders', async () => {
    const files = await startStaticServer(join(ROOT, 'demo-dist'), { isolate: true });
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    try {
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${files.url}/`);
      await waitFor(page, 'window.edgesegDemo?.ready === true');
      expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
      expect(await page.isVisible('#model-source')).toBe(true);
      const { backend, model } = await demoState(page);
      expect(backend).toBe('wasm');
      expect(model).toEqual({ project: 'people', version: 1, label: 'people (bundled)', packageUrl: `${files.url}/models/people/` });

      const manifest = JSON.parse(await readFile(join(PEOPLE_SAMPLES, 'manifest.json'), 'utf8')) as {
        images: { file: string; width: number; height: number }[];
      };
      const sample = manifest.images[0]!;
      await page.setInputFiles('#file-input', join(PEOPLE_SAMPLES, sample.file));
      await waitFor(page, 'window.edgesegDemo.runs >= 1');
      expect((await demoState(page)).payload!.image).toEqual({ width: sample.width, height: sample.height });
      expect(await expectOverlayMatchesPayload(page)).toBeGreaterThan(0.05);
      await page.screenshot({ path: join(ARTIFACTS, 'build-static.png'), fullPage: true });

      await expectPickerRoundTrip(page, { people: ['1', '2'], shapes: ['2'] });
      // This machine's WebGL is software (SwiftShader): the page picks the CPU compositor by itself.
      await expectEffects(page, 'build-static', 'canvas2d');

      // The WebGL2 compositor, forced: the same pixels where they are asserted.
      await page.goto(`${files.url}/?compositor=webgl2`);
      await waitFor(page, 'window.edgesegDemo?.ready === true');
      await page.setInputFiles('#file-input', join(PEOPLE_SAMPLES, sample.file));
      await waitFor(page, 'window.edgesegDemo.runs >= 1');
      await expectEffects(page, 'build-static', 'webgl2');
      expect(errors).toEqual([]);
    } finally {
      await page.close();
      await files.close();
    }
  });
});

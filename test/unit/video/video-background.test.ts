// The video effect's background image is held to what any image edgeseg decodes is: the allow-list and the
// pixel limit, read from the header before the browser's decoder sees the bytes, then on what it decoded.
// Node has no createImageBitmap: a stand-in records what reached it (nothing, for a refused image).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, expect, test, vi } from 'vitest';
import { parseVideoOptions, resolveSettings } from '../../../src/video/video-options.js';
import { pngSized } from '../../fixtures/bad-images.js';
import { samples } from '../../helpers/image-samples.js';
import { stringContaining } from '../../helpers/matchers.js';

const { png } = samples();
/** 20000×20000 by its header (400 megapixels), 1 KB on the wire. */
const huge = pngSized(png, 20000, 20000);
const svg = new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" width="90000" height="90000"/>');

let server: Server;
let base: string;
/** The paths the server was asked for. */
const asked: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    asked.push(req.url ?? '');
    const body = req.url === '/huge.png' ? huge : req.url === '/ok.png' ? png : null;
    if (body) res.writeHead(200, { 'content-type': 'image/png' }).end(body);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** createImageBitmap's stand-in: a bitmap of `size` (the PNG sample's 24×16 unless told). */
function decoder(size = { width: 24, height: 16 }) {
  const closed: unknown[] = [];
  const calls: unknown[] = [];
  vi.stubGlobal(
    'createImageBitmap',
    vi.fn((source: unknown) => {
      calls.push(source);
      const bitmap = { ...size, close: () => closed.push(bitmap) };
      return Promise.resolve(bitmap);
    }),
  );
  return { calls, closed };
}
afterEach(() => {
  vi.unstubAllGlobals();
});

const image = (background: unknown, maxPixels?: number) =>
  resolveSettings({ effect: 'image', background: background as Blob }, null, maxPixels);

test('a background whose header says more pixels than the limit is IMAGE_TOO_LARGE before any decoder sees it: Blob or URL', async () => {
  const { calls } = decoder();
  for (const background of [new Blob([new Uint8Array(huge)]), `${base}/huge.png`, new URL(`${base}/huge.png`)]) {
    await expect(image(background)).rejects.toMatchObject({
      name: 'InvalidInputError',
      code: 'IMAGE_TOO_LARGE',
      message: 'the background image: the image has 20000×20000 = 400.0 megapixels; the limit is 50.0',
    });
  }
  expect(calls).toEqual([]);
});

test('a format edgeseg does not decode (SVG) is IMAGE_FORMAT_UNSUPPORTED; a missing URL is IMAGE_SOURCE_INVALID', async () => {
  const { calls } = decoder();
  await expect(image(new Blob([svg], { type: 'image/svg+xml' }))).rejects.toMatchObject({ code: 'IMAGE_FORMAT_UNSUPPORTED' });
  await expect(image(`${base}/missing.png`)).rejects.toMatchObject({
    code: 'IMAGE_SOURCE_INVALID',
    message: 'the background image: fetching the image answered 404',
  });
  expect(calls).toEqual([]);
});

test("the effect's maxPixels is the limit, at creation and on update; an image within it is decoded", async () => {
  const { calls } = decoder();
  await expect(image(new Blob([new Uint8Array(png)]), 24 * 16 - 1)).rejects.toMatchObject({ code: 'IMAGE_TOO_LARGE' });
  await expect(
    parseVideoOptions({ effect: 'image', background: `${base}/ok.png`, maxPixels: 100, model: { url: `${base}/model/` } }),
  ).rejects.toMatchObject({ code: 'IMAGE_TOO_LARGE' });
  expect(calls).toEqual([]);
  const settings = await image(`${base}/ok.png`, 24 * 16);
  expect([settings.image?.width, settings.image?.height, calls.length]).toEqual([24, 16, 1]);
});

test('a maxPixels that is no limit (NaN, 0, negative, not a number) is OPTION_INVALID before the background is fetched or decoded', async () => {
  const { calls } = decoder();
  asked.length = 0;
  for (const maxPixels of [Number.NaN, 0, -1, '100'])
    await expect(
      parseVideoOptions({
        effect: 'image',
        background: `${base}/huge.png`,
        maxPixels: maxPixels as number,
        model: { url: `${base}/model/` },
      }),
    ).rejects.toMatchObject({ code: 'OPTION_INVALID', message: stringContaining('maxPixels must be a positive number of pixels') });
  expect([asked, calls]).toEqual([[], []]);
});

test('a decoded picture (a bitmap, a canvas) over the limit is refused, and the copy made of it closed', async () => {
  const { closed } = decoder({ width: 10000, height: 10000 });
  const canvas = { width: 10000, height: 10000 };
  await expect(image(canvas)).rejects.toMatchObject({ code: 'IMAGE_TOO_LARGE' });
  expect(closed).toHaveLength(1);
});

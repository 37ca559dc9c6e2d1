// GIFs whose screen says 1×1 over a large frame (libvips decodes the frame whole), TIFFs whose sizes are
// LONG8 fields (kept at an offset, which a reader of four-byte entries took for the size), AVIF overlays
// whose canvas is larger than their ispe (libheif allocates the canvas): the decode gate
// weighs them by what libvips decodes, so a burst of them is queued and refused as the same images with
// honest headers are, and one over the pixel limit is refused before it is decoded.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startPlatformServer, type PlatformServer } from '../../server/index.js';
import { avifDerived, gifFrames, tiffImage } from '../helpers/hostile-images.js';
import { samples } from '../helpers/image-samples.js';
import { parseJson, type ErrorAnswer } from '../helpers/json.js';
import { TINY } from '../helpers/paths.js';
import { rawHttp } from '../helpers/raw-http.js';

const SIZE = 3000;

let dir: string;
let server: PlatformServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'edgeseg-decode-frames-'));
  server = await startPlatformServer({
    port: 0,
    dataDir: join(dir, 'data'),
    modelDir: TINY('tiny-legacy'),
    // One image of SIZE×SIZE is over the budget, so it runs alone; one more waits; the rest are refused.
    limits: { maxDecodePixels: (SIZE * SIZE) / 2, maxDecodesWaiting: 1 },
  });
});

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const infer = (image: Uint8Array) =>
  rawHttp(server.baseUrl, {
    method: 'POST',
    path: `/infer/shapes/2?api_key=${server.apiKey}`,
    body: Buffer.from(image).toString('base64'),
  });

/** `count` at once (four unless told): the statuses, sorted, and the size of an image that was segmented. */
async function burst(image: Uint8Array, count = 4): Promise<{ statuses: number[]; image: unknown; retryAfter: unknown[] }> {
  const answers = await Promise.all(Array.from({ length: count }, () => infer(image)));
  const done = answers.find((a) => a.status === 200);
  const refused = answers.filter((a) => a.status === 503);
  for (const answer of refused) expect(parseJson<ErrorAnswer>(answer.body).error.code).toBe('ServerBusy');
  return {
    statuses: answers.map((a) => a.status).sort(),
    image: done && (JSON.parse(done.body) as { image: unknown }).image,
    retryAfter: refused.map((a) => a.headers['retry-after']),
  };
}

test('a burst of GIFs whose screen says 1×1 over a large frame is gated like the same GIFs with honest screens', async () => {
  const honest = new Uint8Array(
    await sharp({ create: { width: SIZE, height: SIZE, channels: 3, background: '#204080' } })
      .gif()
      .toBuffer(),
  );
  const spoofed = honest.slice();
  spoofed.set([1, 0, 1, 0], 6);
  expect(spoofed.length).toBeLessThan(40_000);
  const expected = { statuses: [200, 200, 503, 503], image: { width: SIZE, height: SIZE }, retryAfter: ['5', '5'] };
  expect(await burst(honest)).toEqual(expected);
  // Weighed by its screen, each would count one pixel: all four decoded at once.
  expect(await burst(spoofed)).toEqual(expected);
  expect(server.handler).toBeDefined();
});

test('a burst of 16 TIFFs of 24 KB whose LONG8 sizes a four-byte reader took for their offsets (a few hundred pixels), decoded by libvips as 5000×5000, is gated like honest ones', async () => {
  const side = 5000;
  const strip = new Uint8Array(deflateSync(new Uint8Array(side * side)));
  const sized = (type: number) =>
    tiffImage(
      [
        { tag: 256, type, value: BigInt(side) },
        { tag: 257, type, value: BigInt(side) },
      ],
      { strip, compression: 8 },
    );
  const honest = sized(4);
  const long8 = sized(16);
  expect(long8.length).toBeLessThan(30_000);
  expect((await sharp(long8).metadata()).width).toBe(side);
  // One runs (each is over the budget alone), one waits, the other 14 are refused, for both.
  const expected = {
    statuses: [200, 200, ...Array<number>(14).fill(503)],
    image: { width: side, height: side },
    retryAfter: Array<string>(14).fill('5'),
  };
  expect(await burst(honest, 16)).toEqual(expected);
  expect(await burst(long8, 16)).toEqual(expected);
});

test('a burst of AVIFs whose overlay canvas is 3000×3000 under an ispe of 48×32 is weighed by the canvas, which libheif allocates', async () => {
  const overlay = avifDerived(samples().avif, 'iovl', { rows: 2, columns: 2, output: [SIZE, SIZE], ispe: [48, 32] });
  expect(overlay.length).toBeLessThan(1000);
  // libheif fills the canvas, then libvips refuses the image for its size not being the ispe's (400); weighed
  // by the ispe, all four were allocated at once.
  const answers = await Promise.all([0, 1, 2, 3].map(() => infer(overlay)));
  expect(answers.map((a) => `${a.status} ${parseJson<ErrorAnswer>(a.body).error.code}`).sort()).toEqual([
    '400 IMAGE_DECODE_FAILED',
    '400 IMAGE_DECODE_FAILED',
    '503 ServerBusy',
    '503 ServerBusy',
  ]);
});

test('a GIF with a frame over the pixel limit is 413 IMAGE_TOO_LARGE, as its honest twin is, whichever frame it is', async () => {
  const frame = { width: 8000, height: 8000 };
  // An honest screen; a 1×1 screen (libvips grows it to the first frame); a later frame, out of the GIF
  // spec, that libvips clips to the screen but another decoder may not.
  const gifs = [gifFrames(8000, 8000, [frame]), gifFrames(1, 1, [frame]), gifFrames(1, 1, [{ width: 1, height: 1 }, frame])];
  for (const gif of gifs) {
    const answer = await infer(gif);
    expect(answer.status).toBe(413);
    const { error } = parseJson<ErrorAnswer>(answer.body);
    expect(error.code).toBe('IMAGE_TOO_LARGE');
    expect(error.message).toBe('the image has 8000×8000 = 64.0 megapixels; the limit is 50.0');
  }
});

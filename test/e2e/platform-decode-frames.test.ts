// GIFs whose screen says 1×1 over a large frame (libvips decodes the frame whole): the decode gate weighs
// them by the frame, so a burst of them is queued and refused as the same GIFs with honest screens are, and
// one whose frame is over the pixel limit is refused before it is decoded.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startPlatformServer, type PlatformServer } from '../../server/index.js';
import { gifFrames } from '../helpers/hostile-images.js';
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

const infer = (gif: Uint8Array) =>
  rawHttp(server.baseUrl, { method: 'POST', path: `/infer/shapes/2?api_key=${server.apiKey}`, body: Buffer.from(gif).toString('base64') });

/** Four at once: the statuses, sorted, and the size of an image that was segmented. */
async function burst(gif: Uint8Array): Promise<{ statuses: number[]; image: unknown; retryAfter: unknown[] }> {
  const answers = await Promise.all([0, 1, 2, 3].map(() => infer(gif)));
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

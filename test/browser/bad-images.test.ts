// The worker holds to the same allow-list as Node: every bad image of the shared table gets the code Node
// gives it, through one segmenter that keeps working after each.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { commands } from 'vitest/browser';
import { createSegmenter, InvalidInputError, PlatformClient, type Segmenter } from '../../src/index.js';
import { badImages, SAMPLE_FILES, type Samples } from '../fixtures/bad-images.js';
import { stringContaining } from '../helpers/matchers.js';

let seg: Segmenter;
let s: Samples;
beforeAll(async () => {
  seg = await createSegmenter({ model: '/test/fixtures/models/tiny-legacy/', backends: ['wasm'], cache: false });
  const entries = await Promise.all(
    Object.entries(SAMPLE_FILES).map(async ([k, file]) => [
      k,
      new Uint8Array(await (await fetch(`/test/fixtures/images/${file}`)).arrayBuffer()),
    ]),
  );
  s = Object.fromEntries(entries) as Samples;
});
afterAll(() => seg.dispose());

describe('the allowed formats Chromium decodes give the payload of the PNG', () => {
  // Lossless WebP and GIF (a palette of the few colours the sample has) hold the PNG's pixels exactly.
  test.each(['webp', 'gif'] as const)('%s', async (format) => {
    const png = await seg.segment(s.png.slice());
    expect(await seg.segment(s[format].slice())).toEqual(png);
  });
});

test('a TIFF, allowed but not decoded by Chromium, is IMAGE_FORMAT_UNSUPPORTED saying so', async () => {
  const error = await seg.segment(s.tiff.slice()).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(InvalidInputError);
  expect(error).toMatchObject({ code: 'IMAGE_FORMAT_UNSUPPORTED', message: stringContaining('only Safari reads TIFF') });
});

describe('bad images: the code Node gives, and the next call works', () => {
  test('every one of the table', async () => {
    const got: Record<string, string> = {};
    const want: Record<string, string> = {};
    for (const { name, bytes, code } of badImages(s)) {
      want[name] = code;
      got[name] = await seg.segment(bytes.slice()).then(
        () => 'no error',
        (e: { code?: string; name?: string }) => (e instanceof InvalidInputError ? e.code : `${e.name}: ${e.code}`),
      );
    }
    expect(got).toEqual(want);
    expect((await seg.segment(s.png.slice())).image).toEqual({ width: 24, height: 16 });
  });
});

test('the hosted backend refuses the same images with the same codes, before sending them', async () => {
  const { baseUrl, inferenceUrl, apiKey } = await commands.localPlatform();
  const platform = new PlatformClient({ apiKey, baseUrl, inferenceUrl });
  const hosted = await createSegmenter({
    model: { workspace: 'edgeseg-demo', project: 'shapes', version: 2 },
    platform,
    backends: ['hosted'],
  });
  try {
    const table = badImages(s).filter((b) => b.bytes.length > 0);
    for (const name of ['an SVG', 'a PNG whose header says 0×0', 'a BMP', 'the pdf signature and junk']) {
      const { bytes, code } = table.find((b) => b.name === name)!;
      for (const source of [bytes.slice(), new Blob([bytes.slice()])]) {
        expect(await hosted.segment(source).catch((e: InvalidInputError) => e.code), name).toBe(code);
      }
    }
    expect(await hosted.segment(s.png.slice())).toEqual(await seg.segment(s.png.slice()));
  } finally {
    await hosted.dispose();
  }
});

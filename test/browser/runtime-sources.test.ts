import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSegmenter, InvalidInputError, type Segmenter } from '../../src/index.js';
import manifest from '../fixtures/reference/manifest.json';
import { codeOf, rejection } from '../helpers/rejection.js';

const IMAGE = manifest.endToEnd.find((c) => c.file.endsWith('97x61.png'))!.file;
const JPEG = manifest.endToEnd.find((c) => c.file.endsWith('.jpg'))!.file;
const url = (file: string) => `/test/fixtures/reference/${file}`;
const bytesOf = async (file = IMAGE) => new Uint8Array(await (await fetch(url(file))).arrayBuffer());

let seg: Segmenter;
let expected: Awaited<ReturnType<Segmenter['segment']>>;
beforeAll(async () => {
  seg = await createSegmenter({ model: '/test/fixtures/models/tiny-legacy/', backends: ['wasm'], maxPixels: 1_000_000 });
  expected = await seg.segment(await bytesOf());
});
afterAll(() => seg.dispose());

const bitmap = async () => createImageBitmap(new Blob([await bytesOf()]));
const canvas = async () => {
  const b = await bitmap();
  const c = document.createElement('canvas');
  [c.width, c.height] = [b.width, b.height];
  c.getContext('2d')!.drawImage(b, 0, 0);
  return c;
};

describe('every kind of source gives the same payload', () => {
  // Each source made fresh for its test (some are transferred); a promise where making one waits.
  const sources: [string, () => unknown][] = [
    ['Blob', async () => new Blob([await bytesOf()], { type: 'image/png' })],
    ['File', async () => new File([await bytesOf()], 'a.png', { type: 'image/png' })],
    ['ArrayBuffer', async () => (await bytesOf()).buffer],
    [
      'Uint8Array view into a larger buffer',
      async () => {
        const b = await bytesOf();
        const big = new Uint8Array(b.length + 20);
        big.set(b, 10);
        return big.subarray(10, 10 + b.length);
      },
    ],
    ['ImageData', async () => (await canvas()).getContext('2d')!.getImageData(0, 0, 97, 61)],
    ['ImageBitmap', bitmap],
    ['HTMLCanvasElement', canvas],
    [
      'OffscreenCanvas',
      async () => {
        const b = await bitmap();
        const c = new OffscreenCanvas(b.width, b.height);
        c.getContext('2d')!.drawImage(b, 0, 0);
        return c;
      },
    ],
    [
      'HTMLImageElement',
      async () => {
        const img = new Image();
        img.src = url(IMAGE);
        await img.decode();
        return img;
      },
    ],
    ['VideoFrame', async () => new VideoFrame(await bitmap(), { timestamp: 0 })],
    ['URL (relative)', () => url(IMAGE)],
    ['base64', async () => btoa(String.fromCharCode(...(await bytesOf())))],
    ['data: URL', async () => `data:image/png;base64,${btoa(String.fromCharCode(...(await bytesOf())))}`],
  ];
  for (const [name, make] of sources) {
    test(name, async () => {
      expect(await seg.segment((await make()) as never)).toEqual(expected);
    });
  }

  test("bytes are transferred, not copied: the caller's buffer is detached", async () => {
    const b = await bytesOf();
    await seg.segment(b);
    expect(b.buffer.byteLength).toBe(0);
  });

  test('EXIF orientation is applied (the payload has the displayed size)', async () => {
    const payload = await seg.segment(await bytesOf(JPEG));
    expect(payload.image).toEqual({ width: 80, height: 120 });
  });

  test('segmentRaw returns class ids matching the payload', async () => {
    const raw = await seg.segmentRaw(await bytesOf());
    expect([raw.width, raw.height, raw.classIds.length]).toEqual([97, 61, 97 * 61]);
    expect(raw.class_map).toEqual(expected.class_map);
  });
});

describe('bad input in the browser: a coded error, and the segmenter keeps working', () => {
  const cases: [string, () => unknown, string][] = [
    ['empty bytes', () => new Uint8Array(0), 'IMAGE_EMPTY'],
    [
      'corrupt bytes with a PNG signature',
      async () => {
        const b = await bytesOf();
        return new Uint8Array([...b.subarray(0, 40), ...new Uint8Array(300).fill(7)]);
      },
      'IMAGE_DECODE_FAILED',
    ],
    ['a truncated JPEG', async () => (await bytesOf(JPEG)).slice(0, 300), 'IMAGE_DECODE_FAILED'],
    [
      'bytes the browser cannot decode (not an image format)',
      () => new TextEncoder().encode('plain text, not an image, not at all'),
      'IMAGE_FORMAT_UNSUPPORTED',
    ],
    [
      'an image over the pixel limit (checked from the header)',
      async () => {
        // A PNG header claiming 2000×2000 is refused before any decoding.
        const b = await bytesOf();
        const h = b.slice();
        new DataView(h.buffer).setUint32(16, 2000);
        new DataView(h.buffer).setUint32(20, 2000);
        return h;
      },
      'IMAGE_TOO_LARGE',
    ],
    ['ImageData over the pixel limit', () => new ImageData(1100, 1000), 'IMAGE_TOO_LARGE'],
    ['a URL that answers 404', () => '/test/fixtures/reference/data/nope.png', 'IMAGE_SOURCE_INVALID'],
    ['a number', () => 42, 'IMAGE_SOURCE_INVALID'],
    ['a plain object', () => ({ width: 3 }), 'IMAGE_SOURCE_INVALID'],
  ];
  for (const [name, make, code] of cases) {
    test(name, async () => {
      const error = await rejection(seg.segment((await make()) as never), InvalidInputError);
      expect(error.code).toBe(code);
      expect(await seg.segment(await bytesOf())).toEqual(expected);
    });
  }

  test.each([Number.NaN, -1, 100.01, Infinity])('confidence %s', async (confidence) => {
    expect(await codeOf(seg.segment(await bytesOf(), { confidence }))).toBe('CONFIDENCE_INVALID');
  });

  test('bad options are refused', async () => {
    for (const options of [{ backends: [] }, { backends: ['gpu'] }, { backends: ['wasm', 'wasm'] }, { numThreads: 0 }]) {
      expect(await codeOf(createSegmenter({ model: '/x/', ...(options as object) }))).toBe('OPTION_INVALID');
    }
  });

  test('model package errors arrive with their class and code', async () => {
    const e = await rejection(createSegmenter({ model: '/test/fixtures/models/', backends: ['wasm'] }));
    expect(e.code).toBe('NO_BACKEND');
    expect(e.message).toMatch(/no inference_config.json or environment.json/);
  });
});

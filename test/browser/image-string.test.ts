import { afterAll, beforeAll, expect, test } from 'vitest';
import { bytesToBase64, createSegmenter, type Segmenter } from '../../src/index.js';
import { isBase64Image } from '../../src/runtime/image-string.js';
import { rejection } from '../helpers/rejection.js';
import manifest from '../fixtures/reference/manifest.json';

const PNG = manifest.endToEnd.find((c) => c.file.endsWith('97x61.png'))!.file;
const JPEG = manifest.endToEnd.find((c) => c.file.endsWith('.jpg'))!.file;
const bytesOf = async (file: string) => new Uint8Array(await (await fetch(`/test/fixtures/reference/${file}`)).arrayBuffer());

test('relative and absolute paths are URLs, even when made of base64 characters', () => {
  for (const url of [
    'api/images/abc123xyz',
    'api/images/abc123xyzabc123xyz',
    'images/0123456789abcdef',
    'abcdefghijklmnopqrst',
    '/api/images/abc123xyz',
    './a.png',
    '../images/x.jpg',
    'images/a.png?x=1',
    'https://example.com/a.png',
    'blob:http://localhost/0b0e',
    '//cdn.example.com/img/abc',
  ]) {
    expect([url, isBase64Image(url)]).toEqual([url, false]);
  }
});

test('base64 of every image signature, standard or URL-safe, with or without padding and line breaks', async () => {
  const png = bytesToBase64(await bytesOf(PNG));
  const jpeg = bytesToBase64(await bytesOf(JPEG));
  // A JPEG's base64 starts with '/9j/', like an absolute path: the decoded signature says otherwise.
  expect(jpeg.startsWith('/9j/')).toBe(true);
  const heads: number[][] = [
    [0x47, 0x49, 0x46, 0x38, 0x39, 0x61], // GIF89a
    [0x52, 0x49, 0x46, 0x46, 1, 2, 3, 4, 0x57, 0x45, 0x42, 0x50], // RIFF….WEBP
    [0x42, 0x4d, 9, 9, 9, 9], // BM
    [0, 0, 1, 0, 1, 0], // ICO
    [0x49, 0x49, 0x2a, 0, 8, 0], // TIFF
    [0, 0, 0, 0x1c, 0x66, 0x74, 0x79, 0x70, 0x61, 0x76, 0x69, 0x66], // ….ftypavif
  ];
  const others = heads.map((h) => bytesToBase64(new Uint8Array([...h, ...new Array<number>(24).fill(7)])));
  for (const text of [
    png,
    jpeg,
    ...others,
    jpeg.replace(/\+/g, '-').replace(/\//g, '_'),
    png.replace(/=+$/, ''),
    png.replace(/(.{76})/g, '$1\n'),
    `data:image/png;base64,${png}`,
  ]) {
    expect([text.slice(0, 24), isBase64Image(text)]).toEqual([text.slice(0, 24), true]);
  }
  // Base64 of something else: short ones are paths; a long one is base64 (no path is 1 KB with no dot).
  expect(isBase64Image(bytesToBase64(new TextEncoder().encode('not an image, not at all')))).toBe(false);
  expect(isBase64Image(bytesToBase64(new Uint8Array(1000).fill(65)))).toBe(true);
});

let seg: Segmenter;
beforeAll(async () => {
  seg = await createSegmenter({ model: '/test/fixtures/models/tiny-legacy/', backends: ['wasm'] });
});
afterAll(() => seg.dispose());

test('the segmenter: JPEG base64 is decoded, a dotless relative path is fetched as a URL', async () => {
  const jpeg = await bytesOf(JPEG);
  const expected = await seg.segment(jpeg.slice());
  expect(await seg.segment(bytesToBase64(jpeg))).toEqual(expected);
  // Fetched (and not found), rather than decoded as base64 garbage.
  const error = await rejection(seg.segment('api/images/abc123xyz'));
  expect([error.name, error.code]).toEqual(['InvalidInputError', 'IMAGE_SOURCE_INVALID']);
  expect(error.message).toMatch(/answered 404/);
});

import { expect, test } from 'vitest';
import { base64ToBytes, bytesToBase64 } from '../../../src/payload/index.js';

test('agrees with Node on every length around the chunk boundaries', () => {
  for (const n of [0, 1, 2, 3, 4, 5, 100, 24575, 24576, 24577, 70000]) {
    const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 7919 + 13) & 255);
    const ours = bytesToBase64(bytes);
    expect(ours).toBe(Buffer.from(bytes).toString('base64'));
    expect(Buffer.from(base64ToBytes(ours)).equals(Buffer.from(bytes))).toBe(true);
  }
});

test('decodes a data: URL, URL-safe characters and line breaks', () => {
  const bytes = Uint8Array.from({ length: 300 }, (_, i) => (i * 31) & 255);
  const b64 = Buffer.from(bytes).toString('base64');
  expect(base64ToBytes(`data:image/png;base64,${b64}`)).toEqual(bytes);
  expect(base64ToBytes(Buffer.from(bytes).toString('base64url'))).toEqual(bytes);
  expect(base64ToBytes(b64.replace(/(.{76})/g, '$1\n'))).toEqual(bytes);
});

test('refuses characters outside the alphabet', () => {
  expect(() => base64ToBytes('abc$')).toThrow(expect.objectContaining({ code: 'IMAGE_SOURCE_INVALID' }));
});

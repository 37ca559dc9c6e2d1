import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzlibSync } from 'fflate';
import UPNG from 'upng-js';
import { describe, expect, test } from 'vitest';
import { decodeMaskPng, encodeMaskPng } from '../../../src/payload/index.js';
import { regionMask } from '../../helpers/masks.js';
import { ROOT } from '../../helpers/paths.js';
import { runPython } from '../../helpers/python.js';

const sizes: [number, number][] = [
  [1, 1],
  [7, 3],
  [97, 61],
  [640, 480],
  [333, 1],
];

describe('encodeMaskPng writes a real 8-bit grayscale PNG', () => {
  for (const [w, h] of sizes) {
    test(`${w}×${h}: upng reads colour type 0, depth 8 and the same bytes`, () => {
      const ids = regionMask(w, h, 21, w * 31 + h);
      const png = encodeMaskPng(ids, w, h);
      const decoded = UPNG.decode(png.buffer.slice(png.byteOffset, png.byteOffset + png.byteLength) as ArrayBuffer);
      expect([decoded.width, decoded.height, decoded.ctype, decoded.depth]).toEqual([w, h, 0, 8]);
      expect(Buffer.from(new Uint8Array(decoded.data).subarray(0, w * h)).equals(Buffer.from(ids))).toBe(true);
      expect(decodeMaskPng(png).classIds).toEqual(ids);
    });
  }

  test('Pillow reads it as mode "L" with the same bytes', () => {
    const ids = regionMask(123, 77, 255, 9);
    ids[0] = 255;
    const png = encodeMaskPng(ids, 123, 77);
    const out = runPython(
      'import sys, io; from PIL import Image; im = Image.open(io.BytesIO(sys.stdin.buffer.read())); im.load(); ' +
        'sys.stdout.write(im.mode + " " + str(im.size[0]) + " " + str(im.size[1]) + "\\n"); sys.stdout.flush(); sys.stdout.buffer.write(im.tobytes())',
      png,
    );
    const newline = out.indexOf(10);
    expect(out.subarray(0, newline).toString()).toBe('L 123 77');
    expect(out.subarray(newline + 1).equals(Buffer.from(ids))).toBe(true);
  });

  test('reads the masks the hosted server writes (Pillow, mode "L")', () => {
    const ids = regionMask(64, 40, 5, 3);
    const png = runPython(
      'import sys, io; from PIL import Image; b = sys.stdin.buffer.read(); im = Image.frombytes("L", (64, 40), b); ' +
        'o = io.BytesIO(); im.save(o, format="PNG"); sys.stdout.buffer.write(o.getvalue())',
      ids,
    );
    expect(decodeMaskPng(new Uint8Array(png))).toEqual({ classIds: ids, width: 64, height: 40 });
  });

  test('compresses region masks well', () => {
    const ids = regionMask(1024, 768);
    expect(encodeMaskPng(ids, 1024, 768).length).toBeLessThan(ids.length / 20);
  });
});

describe('decodeMaskPng refuses what is not a grayscale mask', () => {
  const code = (f: () => unknown) => {
    try {
      f();
      return 'no error';
    } catch (e) {
      return (e as { code: string }).code;
    }
  };
  test('an RGBA PNG', () => {
    const rgba = UPNG.encode([new Uint8Array(4 * 4 * 4).fill(200).buffer], 4, 4, 0);
    expect(code(() => decodeMaskPng(new Uint8Array(rgba)))).toBe('PAYLOAD_INVALID');
  });
  test('bytes that are not a PNG', () => expect(code(() => decodeMaskPng(new Uint8Array([1, 2, 3, 4, 5])))).toBe('PAYLOAD_INVALID'));
  test('a truncated PNG', () => {
    const png = encodeMaskPng(regionMask(50, 50), 50, 50);
    expect(code(() => decodeMaskPng(png.subarray(0, png.length - 30)))).toBe('PAYLOAD_INVALID');
  });
  test('a size that does not match the class ids', () =>
    expect(code(() => encodeMaskPng(new Uint8Array(5), 2, 2))).toBe('PAYLOAD_INVALID'));
});

describe('decodeMaskPng reads masks written by other encoders', () => {
  test("OpenCV's masks (libpng, zlib): the bytes upng reads", () => {
    const dir = join(ROOT, 'models', 'shapes', 'samples');
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
      images: Array<{ mask: string; width: number; height: number }>;
    };
    for (const image of manifest.images.slice(0, 4)) {
      const png = new Uint8Array(readFileSync(join(dir, image.mask)));
      const ours = decodeMaskPng(png);
      const theirs = UPNG.decode(png.buffer.slice(png.byteOffset, png.byteOffset + png.byteLength));
      expect([ours.width, ours.height]).toEqual([image.width, image.height]);
      expect(ours.classIds).toEqual(new Uint8Array(theirs.data).subarray(0, image.width * image.height));
      expect(new Set(ours.classIds).size).toBeGreaterThan(1);
    }
  });

  test("Pillow's adaptive row filters (Sub, Up, Average, Paeth): the bytes it was given", () => {
    const [w, h] = [97, 61];
    const ids = new Uint8Array(w * h);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) ids[y * w + x] = (x * 3 + y * 5 + ((x * y) % 7)) % 200;
    const png = new Uint8Array(
      runPython(
        `import sys, io; from PIL import Image; im = Image.frombytes("L", (${w}, ${h}), sys.stdin.buffer.read()); ` +
          'o = io.BytesIO(); im.save(o, format="PNG"); sys.stdout.buffer.write(o.getvalue())',
        ids,
      ),
    );
    expect(decodeMaskPng(png).classIds).toEqual(ids);
    // The test means something only if the file used more than the "None" filter.
    const rows = unzlibSync(idat(png));
    const filters = new Set(Array.from({ length: h }, (_, y) => rows[y * (w + 1)]));
    expect(filters.size).toBeGreaterThan(1);
  });
});

function idat(png: Uint8Array): Uint8Array {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const parts: number[] = [];
  for (let at = 8; at < png.length; at += 12 + view.getUint32(at)) {
    if (String.fromCharCode(...png.subarray(at + 4, at + 8)) === 'IDAT') parts.push(...png.subarray(at + 8, at + 8 + view.getUint32(at)));
  }
  return new Uint8Array(parts);
}

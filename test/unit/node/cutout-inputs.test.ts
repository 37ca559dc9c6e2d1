// Soft cutouts in Node: `segmentRaw(…, { alpha: true })` and `edgeseg segment --cutout`, on images with an
// alpha channel of their own, 16-bit samples and CMYK: the colours are kept (as 8-bit sRGB), the image's
// alpha and the subject's multiply, and the payload is what the same picture without them gives.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { main } from '../../../src/cli/cli.js';
import { createSegmenter, decodeImage, type NodeSegmenter } from '../../../src/node/index.js';
import { coverageScene } from '../../fixtures/coverage-scenes.js';
import { ROOT } from '../../helpers/paths.js';

const MODEL = join(ROOT, 'models', 'shapes', 'package');
const [W, H] = [160, 120];
const scene = coverageScene(11, 2, W, H);
/** The image's own alpha: 255 on the left third, a ramp across the middle, 0 on the right third's last columns. */
const ownAlpha = Uint8Array.from({ length: W * H }, (_, p) => Math.max(0, Math.min(255, Math.round(((W - 8 - (p % W)) / (W / 2)) * 255))));
const rgba = new Uint8Array(W * H * 4);
for (let p = 0; p < W * H; p++) rgba.set([...scene.image.data.subarray(p * 3, p * 3 + 3), ownAlpha[p]!], p * 4);

let seg: NodeSegmenter;
let dir: string;
const files: Record<string, string> = {};

beforeAll(async () => {
  seg = await createSegmenter({ model: MODEL, numThreads: 1 });
  dir = await mkdtemp(join(tmpdir(), 'edgeseg-cutout-'));
  const raw = (data: Uint8Array | Uint16Array, channels: 3 | 4) => sharp(data, { raw: { width: W, height: H, channels } });
  const write = async (name: string, bytes: Buffer) => {
    files[name] = join(dir, name);
    await writeFile(files[name], bytes);
  };
  await write('rgb.png', await raw(scene.image.data, 3).png().toBuffer());
  await write('rgba.png', await raw(rgba, 4).png().toBuffer());
  // 16 bits a sample: each 8-bit value v as v · 257, which is v again in 8 bits.
  const wide = Uint16Array.from(rgba, (v) => v * 257);
  await write('rgba16.png', await raw(wide, 4).toColourspace('rgb16').png().toBuffer());
  await write('cmyk.jpg', await raw(scene.image.data, 3).toColourspace('cmyk').jpeg({ quality: 95 }).toBuffer());
});

afterAll(async () => {
  await seg.dispose();
  await rm(dir, { recursive: true, force: true });
});

/** `edgeseg segment <file> --cutout <out>` in this process; the written RGBA. */
async function cutout(file: string, ...flags: string[]) {
  const out = join(dir, `cut-${Math.random().toString(36).slice(2)}.png`);
  let err = '';
  const code = await main(['segment', file, '--model', MODEL, '--cutout', out, '--quiet', ...flags], {
    out: () => undefined,
    err: (t) => (err += t),
  });
  expect(err).toBe('');
  expect(code).toBe(0);
  const { data, info } = await sharp(out).raw().toBuffer({ resolveWithObject: true });
  expect([info.width, info.height, info.channels]).toEqual([W, H, 4]);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

describe('segmentRaw(source, { alpha: true })', () => {
  test('gives the soft alpha beside the same class ids; edges between 0 and 255, sure pixels 0 or 255', async () => {
    const plain = await seg.segmentRaw(files['rgb.png']!);
    const soft = await seg.segmentRaw(files['rgb.png']!, { alpha: true });
    expect(plain.alpha).toBeUndefined();
    expect(soft.classIds).toEqual(plain.classIds);
    expect(soft.alpha.length).toBe(W * H);
    let between = 0;
    let agree = 0;
    for (let p = 0; p < W * H; p++) {
      const a = soft.alpha[p]!;
      if (a > 0 && a < 255) between++;
      if (a >= 128 === (plain.classIds[p] !== 0)) agree++;
    }
    expect(between).toBeGreaterThan(0);
    expect(agree / (W * H)).toBeGreaterThan(0.98);
  });
});

describe('--cutout keeps the picture and combines the alphas', () => {
  test('RGB: the colours as decoded, the alpha the soft alpha; --edges hard is the class-id mask', async () => {
    const { alpha, classIds } = await seg.segmentRaw(files['rgb.png']!, { alpha: true });
    const soft = await cutout(files['rgb.png']!);
    const hard = await cutout(files['rgb.png']!, '--edges', 'hard');
    for (let p = 0; p < W * H; p++) {
      expect(soft[p * 4 + 3]).toBe(alpha[p]);
      expect(hard[p * 4 + 3]).toBe(classIds[p] === 0 ? 0 : 255);
      for (let c = 0; c < 3; c++) expect(soft[p * 4 + c]).toBe(scene.image.data[p * 3 + c]);
    }
  });

  test.each(['rgba.png', 'rgba16.png'])(
    '%s: the payload is the RGB picture’s; the cutout’s alpha is the subject’s times the image’s',
    async (name) => {
      const file = files[name]!;
      expect(await seg.segment(file)).toEqual(await seg.segment(files['rgb.png']!));
      const decoded = await seg.segmentDetailed(file, { alpha: true });
      expect(decoded.image.channels).toBe(4);
      const { alpha } = decoded.raw;
      const cut = await cutout(file);
      let partial = 0;
      for (let p = 0; p < W * H; p++) {
        const expected = Math.round((alpha![p]! * ownAlpha[p]!) / 255);
        expect(cut[p * 4 + 3]).toBe(expected);
        if (ownAlpha[p]! > 0 && ownAlpha[p]! < 255 && alpha![p] === 255) partial++;
        for (let c = 0; c < 3; c++) expect(cut[p * 4 + c]).toBe(scene.image.data[p * 3 + c]);
      }
      // The image's own half-transparent pixels over the subject stay half transparent.
      expect(partial).toBeGreaterThan(0);
    },
  );

  test('CMYK JPEG: converted to sRGB, the colours close to the picture’s, the segmentation the same as the RGB picture’s', async () => {
    const decoded = await decodeImage(await readFile(files['cmyk.jpg']!));
    expect(decoded.channels).toBe(3);
    let off = 0;
    for (let i = 0; i < W * H * 3; i++) off += Math.abs(decoded.data[i]! - scene.image.data[i]!);
    // A JPEG at quality 95 and a round trip through CMYK without a profile: 11 levels a sample on average
    // (CMYK values left as they are, or inverted, would be off by about a hundred).
    expect(off / (W * H * 3)).toBeLessThan(16);
    const cut = await cutout(files['cmyk.jpg']!);
    for (let i = 0, p = 0; p < W * H; p++, i += 3) for (let c = 0; c < 3; c++) expect(cut[p * 4 + c]).toBe(decoded.data[i + c]);
    const ids = (await seg.segmentRaw(files['cmyk.jpg']!)).classIds;
    const reference = (await seg.segmentRaw(files['rgb.png']!)).classIds;
    let same = 0;
    for (let p = 0; p < W * H; p++) if (ids[p] === reference[p]) same++;
    expect(same / (W * H)).toBeGreaterThan(0.97);
  });
});

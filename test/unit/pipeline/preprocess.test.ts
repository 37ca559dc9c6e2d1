import { describe, expect, test } from 'vitest';
import { preprocess } from '../../../src/pipeline/index.js';
import { loadFloat32, loadUint8, manifest } from '../../fixtures/reference/fixtures.js';

describe('preprocess matches the reference input tensor', () => {
  for (const c of manifest.preprocess) {
    test(c.name, () => {
      const [h, w] = c.image.shape;
      const { tensor, meta } = preprocess({ data: loadUint8(c.image), width: w, height: h, channels: 3 }, c.spec);
      expect(meta).toEqual(c.meta);
      const expected = loadFloat32(c.tensor);
      expect(tensor.length).toBe(expected.length);
      let maxDiff = 0;
      for (let i = 0; i < expected.length; i++) maxDiff = Math.max(maxDiff, Math.abs(tensor[i]! - expected[i]!));
      expect(maxDiff).toBeLessThanOrEqual(1e-6);
    });
  }

  test('reuses the output buffer it is given', () => {
    const c = manifest.preprocess[0]!;
    const [h, w] = c.image.shape;
    const out = new Float32Array(3 * c.spec.resize.width * c.spec.resize.height);
    const { tensor } = preprocess({ data: loadUint8(c.image), width: w, height: h, channels: 3 }, c.spec, out);
    expect(tensor).toBe(out);
    expect(Array.from(out.subarray(0, 8))).toEqual(Array.from(loadFloat32(c.tensor).subarray(0, 8)));
  });
});

describe('bad input is a coded error', () => {
  const spec = manifest.preprocess[0]!.spec;
  const image = (width: number, height: number) => ({
    data: new Uint8Array(Math.max(0, width * height * 3)),
    width,
    height,
    channels: 3 as const,
  });
  const codeOf = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      return (e as { code?: string }).code;
    }
    return 'no error';
  };

  test('a 0×0 image', () => expect(codeOf(() => preprocess(image(0, 0), spec))).toBe('IMAGE_EMPTY'));
  test('pixel data shorter than the size says', () =>
    expect(codeOf(() => preprocess({ ...image(10, 10), data: new Uint8Array(10) }, spec))).toBe('IMAGE_SOURCE_INVALID'));
  test('a static crop that leaves nothing', () =>
    expect(codeOf(() => preprocess(image(10, 10), { ...spec, staticCrop: { xMin: 50, xMax: 50, yMin: 0, yMax: 100 } }))).toBe(
      'IMAGE_EMPTY',
    ));
  test('an image too thin to letterbox', () =>
    expect(
      codeOf(() => preprocess(image(1000, 1), { ...spec, resize: { mode: 'letterbox', width: 64, height: 48, paddingValue: 0 } })),
    ).toBe('IMAGE_EMPTY'));
  test('an output buffer of the wrong size', () =>
    expect(codeOf(() => preprocess(image(10, 10), spec, new Float32Array(5)))).toBe('OPTION_INVALID'));
});

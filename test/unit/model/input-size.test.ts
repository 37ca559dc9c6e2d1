// The input size a segmenter runs a package at: the package's own, or an asked-for size where the package says its
// model takes other sizes, by the platform's rule (dynamic_spatial_size_supported, dynamic_spatial_size_mode).
import { describe, expect, test } from 'vitest';
import { checkInputSizeOption, resolveInputSize } from '../../../src/model/input-size.js';
import { createSegmenter } from '../../../src/node/index.js';
import { TINY } from '../../helpers/paths.js';

const own = { width: 64, height: 48 };
const divisible = { supported: true, mode: { type: 'pad-to-be-divisible', value: 32 } } as const;

describe('resolveInputSize', () => {
  test('pad-to-be-divisible rounds each side up to the multiple; any-size takes it as asked', () => {
    expect(resolveInputSize(own, divisible, null, { width: 100, height: 70 })).toEqual({ size: { width: 128, height: 96 } });
    expect(resolveInputSize(own, divisible, 'yolo26', { width: 96, height: 32 })).toEqual({ size: { width: 96, height: 32 } });
    expect(resolveInputSize(own, { supported: true, mode: { type: 'any-size' } }, null, { width: 101, height: 7 })).toEqual({
      size: { width: 101, height: 7 },
    });
  });

  test("not asked, or asked for the package's own size: the package's size", () => {
    expect(resolveInputSize({ width: 64, height: 32 }, divisible, null, undefined)).toEqual({ size: { width: 64, height: 32 } });
    expect(resolveInputSize(own, { supported: false, mode: null }, null, { ...own })).toEqual({ size: own });
  });

  test("a package that does not say its model takes other sizes, or the platform's DeepLabV3+: ignored, with a warning", () => {
    expect(resolveInputSize(own, { supported: false, mode: null }, null, { width: 100, height: 70 })).toEqual({
      size: own,
      warning:
        'inputSize 100×70 is ignored: the package says dynamic_spatial_size_supported: false (or does not say); the model runs at 64×48',
    });
    expect(resolveInputSize(own, divisible, 'deep-lab-v3-plus', { width: 100, height: 70 }).warning).toContain(
      "the platform's DeepLabV3+ runs at its training size",
    );
  });

  test('supported with no mode: MODEL_CONFIG_INVALID naming the field to add', () => {
    expect(() => resolveInputSize(own, { supported: true, mode: null }, null, { width: 100, height: 70 })).toThrowError(
      expect.objectContaining({
        code: 'MODEL_CONFIG_INVALID',
        message: expect.stringContaining('dynamic_spatial_size_mode is missing') as string,
      }),
    );
  });

  test.each([[{ width: 0, height: 10 }], [{ width: 10.5, height: 10 }], [{ width: 10 }], [[32, 32]], [{ width: 9000, height: 10 }]])(
    'inputSize %j: OPTION_INVALID',
    (size) => {
      expect(() => checkInputSizeOption(size)).toThrowError(expect.objectContaining({ code: 'OPTION_INVALID' }));
    },
  );
});

test('createSegmenter with inputSize: tiny-dynamic runs at 128×96; tiny-legacy keeps its size and says why', async () => {
  const dynamic = await createSegmenter({ model: TINY('tiny-dynamic'), inputSize: { width: 100, height: 70 }, numThreads: 1 });
  expect(dynamic.spec.preprocess.resize).toMatchObject({ width: 128, height: 96 });
  expect(dynamic.warnings).toEqual([]);
  const fixed = await createSegmenter({ model: TINY('tiny-legacy'), inputSize: { width: 100, height: 70 }, numThreads: 1 });
  expect(fixed.spec.preprocess.resize).toMatchObject({ width: 64, height: 48 });
  expect(fixed.warnings).toEqual([expect.stringContaining('inputSize 100×70 is ignored')]);
  await Promise.all([dynamic.dispose(), fixed.dispose()]);
});

test('a package whose own size is not a multiple its mode asks for: run as it is, with a warning', () => {
  expect(resolveInputSize({ width: 400, height: 300 }, divisible, null, undefined)).toEqual({
    size: { width: 400, height: 300 },
    warning:
      "training_input_size 400×300 is not a multiple of 32, which dynamic_spatial_size_mode says the model's sizes are: the model may refuse it at the first call",
  });
});

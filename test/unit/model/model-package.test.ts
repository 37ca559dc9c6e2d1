import { readFile } from 'node:fs/promises';
import { describe, expect, test } from 'vitest';
import { checkModelShapes, IMAGENET, parseModelPackage, type PackageFiles } from '../../../src/model/index.js';
import { readPackageDir } from '../../../src/node/index.js';
import { join } from 'node:path';
import { ROOT, TINY } from '../../helpers/paths.js';
import { rejection } from '../../helpers/rejection.js';
import { identityModel } from '../../fixtures/tiny-graphs.js';

const enc = (s: string) => new TextEncoder().encode(s);
// The smallest model a package's configuration can be read against: an image in, [1, C, h, w] out.
const weights = identityModel();
const classes = enc('background\ncircle\nrectangle\n');
const legacy = (pre: unknown, extra: Record<string, unknown> = {}): PackageFiles => ({
  'weights.onnx': weights,
  'class_names.txt': classes,
  'environment.json': enc(JSON.stringify({ PREPROCESSING: pre, ...extra })),
});
const codeOf = (f: () => unknown) => {
  try {
    f();
    return 'no error';
  } catch (e) {
    return (e as { code: string }).code;
  }
};

describe('legacy packages (environment.json)', () => {
  test('PREPROCESSING as a JSON string with sizes as strings, as the platform writes it', async () => {
    const { spec } = parseModelPackage(await readPackageDir(TINY('tiny-legacy')));
    expect(spec.generation).toBe('legacy');
    expect(spec.classNames).toEqual(['background', 'circle', 'rectangle', 'triangle', 'star']);
    expect(spec.preprocess).toEqual({
      staticCrop: null,
      grayscale: false,
      contrast: null,
      resize: { mode: 'letterbox', width: 64, height: 48, paddingValue: 0 },
      colorMode: 'rgb',
      scalingFactor: 255,
      normalization: IMAGENET,
    });
    expect(spec.colors.circle).toBe('#e6194b');
  });

  test('PREPROCESSING as an object, with every step', () => {
    const { spec } = parseModelPackage(
      legacy({
        resize: { enabled: true, format: 'Fit (grey edges) in', width: 320, height: '240' },
        'static-crop': { enabled: true, x_min: '10', x_max: 90, y_min: 5, y_max: 95 },
        grayscale: { enabled: true },
        contrast: { enabled: true, type: 'Adaptive Equalization' },
      }),
    );
    expect(spec.preprocess.resize).toEqual({ mode: 'letterbox', width: 320, height: 240, paddingValue: 127 });
    expect(spec.preprocess.staticCrop).toEqual({ xMin: 10, xMax: 90, yMin: 5, yMax: 95 });
    expect([spec.preprocess.grayscale, spec.preprocess.contrast]).toEqual([true, 'adaptive-equalization']);
  });

  test.each([
    ['Stretch to', 'stretch', 0],
    ['Fit (black edges) in', 'letterbox', 0],
    ['Fit (white edges) in', 'letterbox', 255],
    ['Fit (reflect edges) in', 'letterbox', 0],
    ['Fit within', 'letterbox', 0],
    ['Fill (with center crop) in', 'center-crop', 0],
  ])('resize format %s → %s with padding %i', (format, mode, padding) => {
    const { spec } = parseModelPackage(legacy(JSON.stringify({ resize: { format, width: '64', height: '64' } })));
    expect(spec.preprocess.resize).toMatchObject({ mode, paddingValue: padding });
  });

  test('an unknown resize format runs as "Stretch to", with a warning, as the reference does', () => {
    const parsed = parseModelPackage(legacy({ resize: { format: 'Squish', width: 64, height: 64 } }));
    expect(parsed.spec.preprocess.resize.mode).toBe('stretch');
    expect(parsed.warnings[0]).toMatch(/Squish/);
  });

  test('disabled steps are skipped', () => {
    const { spec } = parseModelPackage(
      legacy({ grayscale: { enabled: false }, contrast: { enabled: false, type: 'x' }, 'static-crop': { enabled: false } }),
    );
    expect([spec.preprocess.grayscale, spec.preprocess.contrast, spec.preprocess.staticCrop]).toEqual([false, null, null]);
  });

  test('class names from CLASS_MAP when class_names.txt is absent', () => {
    const files = legacy({}, { CLASS_MAP: { '1': 'cat', '0': 'background', '10': 'dog' } });
    delete files['class_names.txt'];
    expect(parseModelPackage(files).spec.classNames).toEqual(['background', 'cat', 'dog']);
  });
});

describe('current packages (inference_config.json)', () => {
  test('network_input and image_pre_processing', async () => {
    const { spec } = parseModelPackage(await readPackageDir(TINY('tiny-current')));
    expect(spec.generation).toBe('current');
    expect(spec.preprocess).toEqual({
      staticCrop: { xMin: 10, xMax: 95, yMin: 5, yMax: 90 },
      grayscale: false,
      contrast: null,
      resize: { mode: 'stretch', width: 56, height: 40, paddingValue: 0 },
      colorMode: 'bgr',
      scalingFactor: 255,
      normalization: { mean: [0.5, 0.45, 0.4], std: [0.25, 0.25, 0.3] },
    });
  });

  test('fit-longer-edge runs as a black letterbox, as the reference ONNX model does', () => {
    const config = {
      network_input: {
        training_input_size: { width: 64, height: 64 },
        resize_mode: 'fit-longer-edge',
        padding_value: 114,
        color_mode: 'rgb',
        input_channels: 3,
      },
    };
    const { spec } = parseModelPackage({
      'weights.onnx': weights,
      'class_names.txt': classes,
      'inference_config.json': enc(JSON.stringify(config)),
    });
    expect(spec.preprocess.resize).toEqual({ mode: 'letterbox', width: 64, height: 64, paddingValue: 0 });
    expect([spec.preprocess.scalingFactor, spec.preprocess.normalization]).toEqual([null, null]);
  });
});

describe('model_type.json', () => {
  const withType = (content: unknown): PackageFiles => ({ ...legacy({}), 'model_type.json': enc(JSON.stringify(content)) });
  const kinds = (files: PackageFiles) => {
    const { spec } = parseModelPackage(files);
    return { task: spec.task, modelType: spec.modelType };
  };

  test('the bundled package: the task in `type`, the architecture in `model_type`', async () => {
    const { spec } = parseModelPackage(await readPackageDir(join(ROOT, 'models', 'shapes', 'package')));
    expect({ task: spec.task, modelType: spec.modelType }).toEqual({ task: 'semantic-segmentation', modelType: 'edgeseg-shapes' });
  });

  test('the keys the platform’s inference server writes: project_task_type and model_type', () => {
    expect(kinds(withType({ project_task_type: 'semantic-segmentation', model_type: 'deeplab-v3-plus' }))).toEqual({
      task: 'semantic-segmentation',
      modelType: 'deeplab-v3-plus',
    });
  });

  test('project_task_type wins over type; a missing or non-string key is null', () => {
    expect(kinds(withType({ project_task_type: 'semantic-segmentation', type: 'other' })).task).toBe('semantic-segmentation');
    expect(kinds(withType({ type: 'semantic-segmentation', model_type: 7 }))).toEqual({ task: 'semantic-segmentation', modelType: null });
    expect(kinds(legacy({}))).toEqual({ task: null, modelType: null });
  });

  test('malformed model_type.json is a coded error', () =>
    expect(codeOf(() => parseModelPackage({ ...legacy({}), 'model_type.json': enc('{"type": ') }))).toBe('MODEL_JSON_MALFORMED'));
});

describe('bad packages are coded errors', () => {
  test('no weights', () => {
    const files = legacy({});
    delete files['weights.onnx'];
    expect(codeOf(() => parseModelPackage(files))).toBe('MODEL_FILE_MISSING');
  });
  test('no configuration at all', () =>
    expect(codeOf(() => parseModelPackage({ 'weights.onnx': weights, 'class_names.txt': classes }))).toBe('MODEL_FILE_MISSING'));
  test('a missing folder', async () => expect((await rejection(readPackageDir('/nonexistent/pkg'))).code).toBe('MODEL_FILE_MISSING'));
  test('malformed environment.json', () =>
    expect(codeOf(() => parseModelPackage({ ...legacy({}), 'environment.json': enc('{"PREPROCESSING": ') }))).toBe('MODEL_JSON_MALFORMED'));
  test('malformed PREPROCESSING string', () => expect(codeOf(() => parseModelPackage(legacy('{"resize": ')))).toBe('MODEL_JSON_MALFORMED'));
  test('no class names', () =>
    expect(codeOf(() => parseModelPackage({ ...legacy({}), 'class_names.txt': enc('\n \n') }))).toBe('MODEL_NO_CLASSES'));
  test('more than 256 classes', () => {
    const names = ['background', ...Array.from({ length: 256 }, (_, i) => `c${i}`)].join('\n');
    expect(codeOf(() => parseModelPackage({ ...legacy({}), 'class_names.txt': enc(names) }))).toBe('MODEL_TOO_MANY_CLASSES');
  });
  test('no background class', () =>
    expect(codeOf(() => parseModelPackage({ ...legacy({}), 'class_names.txt': enc('cat\ndog') }))).toBe('MODEL_CONFIG_INVALID'));
  test('a size that is not a number', () =>
    expect(codeOf(() => parseModelPackage(legacy({ resize: { format: 'Stretch to', width: 'big', height: 5 } })))).toBe(
      'MODEL_CONFIG_INVALID',
    ));
  test('an unknown contrast type', () =>
    expect(codeOf(() => parseModelPackage(legacy({ contrast: { enabled: true, type: 'Sharpen' } })))).toBe('MODEL_CONFIG_INVALID'));
});

describe('checkModelShapes', () => {
  const { spec } = parseModelPackage(legacy({ resize: { format: 'Stretch to', width: 64, height: 48 } }));
  test('accepts [1, 3, H, W] → [1, C, h, w] and C = classes, classes − 1, 1', () => {
    for (const c of [3, 2, 1])
      expect(checkModelShapes(spec, { input: [1, 3, 48, 64], output: [1, c, 12, 16] }).spec.preprocess.resize.width).toBe(64);
  });
  test('takes the size from the model when the package has none', () => {
    const { spec: noSize } = parseModelPackage(legacy({}));
    expect(checkModelShapes(noSize, { input: ['batch', 3, 100, 80], output: [1, 3, 25, 20] }).spec.preprocess.resize).toMatchObject({
      width: 80,
      height: 100,
    });
  });
  test.each([
    [[1, 1, 48, 64], 'MODEL_INPUT_SHAPE'],
    [[1, 3, 48], 'MODEL_INPUT_SHAPE'],
    [[1, 3, 64, 64], 'MODEL_INPUT_SHAPE'],
  ])('refuses input %j', (input, code) => expect(codeOf(() => checkModelShapes(spec, { input, output: [1, 3, 12, 16] }))).toBe(code));
  test('refuses 7 output channels for 3 classes', () =>
    expect(codeOf(() => checkModelShapes(spec, { input: [1, 3, 48, 64], output: [1, 7, 12, 16] }))).toBe('MODEL_OUTPUT_SHAPE'));
  test('a real ONNX model with a gray input is refused at load time', async () => {
    const { createSegmenter } = await import('../../../src/node/index.js');
    const files = {
      ...(await readPackageDir(TINY('tiny-legacy'))),
      'weights.onnx': new Uint8Array(await readFile(join(ROOT, 'test', 'fixtures', 'models', 'bad-input.onnx'))),
    };
    expect((await rejection(createSegmenter({ model: { files } }))).code).toBe('MODEL_INPUT_SHAPE');
  });
});

test('an input size no tensor could hold is refused at parse time', () => {
  const pkg = (size: unknown) => legacy(JSON.stringify({ resize: { enabled: true, format: 'Stretch to', width: size, height: '64' } }));
  expect(codeOf(() => parseModelPackage(pkg('8192')))).toBe('no error');
  expect(codeOf(() => parseModelPackage(pkg('100000')))).toBe('MODEL_CONFIG_INVALID');
  expect(codeOf(() => parseModelPackage(pkg(2 ** 53)))).toBe('MODEL_CONFIG_INVALID');
});

describe("the platform's architectures (model_config.json)", () => {
  test('YOLO26: fit-longer-edge is a grey letterbox (127), as the reference runs it; DeepLabV3+ and no architecture: black', async () => {
    const files = await readPackageDir(TINY('tiny-yolo26'));
    const yolo = parseModelPackage(files).spec;
    expect([yolo.architecture, yolo.preprocess.resize]).toEqual([
      'yolo26',
      { mode: 'letterbox', width: 64, height: 48, paddingValue: 127 },
    ]);
    const as = (architecture: string | null) => {
      const copy: PackageFiles = { ...files };
      if (architecture === null) delete copy['model_config.json'];
      else copy['model_config.json'] = enc(JSON.stringify({ model_architecture: architecture }));
      return parseModelPackage(copy).spec;
    };
    expect(as('deep-lab-v3-plus').preprocess.resize.paddingValue).toBe(0);
    expect(as(null)).toMatchObject({ architecture: null, preprocess: { resize: { paddingValue: 0 } } });
    // Its 4 logit channels for 5 classes: the background channel is inserted, as the reference does.
    expect(yolo.form.output.channels).toBe(4);
  });
});

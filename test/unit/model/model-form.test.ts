// What edgeseg makes of models whose graph does not fit one reading: each is refused at load with a message
// that says what the model looks like and what to write, or read as the package's configuration says.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { createSegmenter, readPackageDir } from '../../../src/node/index.js';
import { parseModelPackage, type PackageFiles } from '../../../src/model/index.js';
import { graphModel, tensorInfo } from '../../fixtures/tiny-graphs.js';
import { fixturePath, manifest } from '../../fixtures/reference/fixtures.js';
import { TINY } from '../../helpers/paths.js';

const enc = (s: string) => new TextEncoder().encode(s);
const config = (extra: Record<string, unknown> = {}, input: Record<string, unknown> = {}) =>
  enc(
    JSON.stringify({
      network_input: {
        training_input_size: { height: 32, width: 32 },
        dynamic_spatial_size_supported: false,
        color_mode: 'rgb',
        resize_mode: 'stretch',
        input_channels: 3,
        scaling_factor: 255,
        ...input,
      },
      ...extra,
    }),
  );
const pkg = (weights: Uint8Array, classes = ['background', 'a', 'b'], extra: Record<string, unknown> = {}, input = {}): PackageFiles => ({
  'weights.onnx': weights,
  'class_names.txt': enc(classes.join('\n')),
  'inference_config.json': config(extra, input),
});
const refusal = (files: PackageFiles) => {
  try {
    parseModelPackage(files);
    return 'accepted';
  } catch (e) {
    return `${(e as { code: string }).code}: ${(e as Error).message}`;
  }
};
const identity = (input: (number | string)[], output: (number | string)[], inType = 1, outType = 1) =>
  graphModel([{ op_type: 'Identity', input: ['x'], output: ['y'] }], tensorInfo('x', input, inType), [tensorInfo('y', output, outType)]);

describe('refused, saying what the model is and what to write', () => {
  test.each<[string, Uint8Array, RegExp]>([
    ['a detector: boxes [1, 8400, 84]', identity([1, 3, 32, 32], [1, 8400, 84]), /looks like an object detector/],
    ['an embedding [1, 512]', identity([1, 3, 32, 32], [1, 512]), /a vector per image \(a classifier or an embedding model\)/],
    ['an image-to-image model [1, 3, 64, 64]', identity([1, 3, 32, 32], [1, 3, 64, 64]), /gives an image \(3 channels\)/],
    [
      'channels that fit no class count [1, 7, 8, 8]',
      identity([1, 3, 32, 32], [1, 7, 8, 8]),
      /7 \(as NCHW\) or 8 \(as NHWC\) channels, which fit none of 5, 4/,
    ],
    [
      'an output that could be NCHW or NHWC [1, 4, 16, 4]',
      identity([1, 3, 32, 32], [1, 4, 16, 4]),
      /could be NCHW or NHWC \(4 and 4 channels both fit 5 classes\): set network_output.layout/,
    ],
    ['a gray input [1, 1, 32, 32]', identity([1, 1, 32, 32], [1, 3, 8, 8]), /has 1 channels, not 3/],
    ['a uint8 input', identity([1, 3, 32, 32], [1, 3, 8, 8], 2), /is uint8; edgeseg feeds float32 or float16 images/],
    ['int64 values with no ArgMax', identity([1, 3, 32, 32], [1, 3, 8, 8], 1, 7), /gives int64 values, and no ArgMax/],
    [
      'an input whose layout nothing tells [1, ?, ?, ?]',
      graphModel([{ op_type: 'Relu', input: ['x'], output: ['y'] }], tensorInfo('x', [1, 'a', 'b', 'c']), [
        tensorInfo('y', [1, 3, 'h', 'w']),
      ]),
      /could be NCHW or NHWC and its graph does not tell: set network_input.layout/,
    ],
    [
      'two inputs',
      graphModel(
        [{ op_type: 'Add', input: ['x', 'z'], output: ['y'] }],
        [tensorInfo('x', [1, 3, 32, 32]), tensorInfo('z', [1, 3, 32, 32])],
        [tensorInfo('y', [1, 3, 32, 32])],
      ),
      /the model has 2 inputs \("x" float32 \[1, 3, 32, 32\], "z" float32 \[1, 3, 32, 32\]\); edgeseg feeds one image/,
    ],
  ])('%s', (_, weights, message) => {
    expect(refusal(pkg(weights, ['background', 'a', 'b', 'c', 'd']))).toMatch(message);
  });

  test('a final Clip(0, 1): the graph cannot tell probabilities from scores, and post_processing decides', async () => {
    const files = await readPackageDir(TINY('forms/clip'));
    expect(refusal(files)).toMatch(
      /ends in a Clip, which may give probabilities or scores: say which in inference_config.json with "post_processing"/,
    );
  });

  test('post_processing that contradicts the graph names the field to correct', async () => {
    const sigmoid = (await readPackageDir(TINY('forms/sigmoid')))['weights.onnx']!;
    expect(refusal(pkg(sigmoid, ['background', 'shape'], { post_processing: { type: 'softmax', fused: true } }))).toMatch(
      /ends in a Sigmoid, but post_processing says softmax: correct post_processing.type/,
    );
    expect(refusal(pkg(sigmoid, ['background', 'shape'], { post_processing: { type: 'sigmoid', fused: false } }))).toMatch(
      /ends in a Sigmoid \(probabilities\), but post_processing says "fused": false \(logits\): set "fused": true/,
    );
    expect(refusal(pkg(sigmoid, ['background', 'shape'], { post_processing: { type: 'nms', fused: true } }))).toMatch(
      /MODEL_CONFIG_INVALID: .*"nms": that is an object detector's/,
    );
  });

  test('network_output.name names an output the model lacks: the message lists its outputs', async () => {
    const two = (await readPackageDir(TINY('forms/second-output')))['weights.onnx']!;
    expect(refusal(pkg(two, ['background', 'a', 'b', 'c', 'd'], { network_output: { name: 'mask' } }))).toMatch(
      /names the output "mask", which the model does not have; its outputs: "colours" float32 \[1, 3, 12, 16\], "logits" float32 \[1, 5, 12, 16\]/,
    );
  });

  test('a package with weights and no configuration says what to write', () => {
    expect(refusal({ 'weights.onnx': identity([1, 3, 32, 32], [1, 3, 8, 8]), 'class_names.txt': enc('background\na') })).toMatch(
      /neither inference_config.json .* nor environment.json .*: write one \(docs\/node.md lists its fields\), or let `npx edgeseg package weights.onnx --classes background,…` write the package/,
    );
  });
});

describe('read as the configuration says, where the graph alone cannot tell', () => {
  test('network_output.layout decides a square output; network_output.name picks an output', async () => {
    const { spec } = parseModelPackage(pkg(identity([1, 3, 32, 32], [1, 3, 16, 3]), undefined, { network_output: { layout: 'nhwc' } }));
    expect([spec.form.output.layout, spec.form.output.channels]).toEqual(['nhwc', 3]);
    const two = (await readPackageDir(TINY('forms/second-output')))['weights.onnx']!;
    const named = parseModelPackage(pkg(two, ['background', 'a', 'b', 'c', 'd'], { network_output: { name: 'logits' } }));
    expect(named.spec.form.output.name).toBe('logits');
    expect(named.spec.form.ignoredOutputs).toEqual(['colours']);
  });

  test('network_input.layout decides an input nothing else tells', () => {
    const weights = graphModel([{ op_type: 'Relu', input: ['x'], output: ['y'] }], tensorInfo('x', [1, 'a', 'b', 'c']), [
      tensorInfo('y', [1, 3, 'h', 'w']),
    ]);
    expect(parseModelPackage(pkg(weights, undefined, {}, { layout: 'nchw' })).spec.form.input.layout).toBe('nchw');
  });

  test('post_processing {sigmoid, fused: true} on a final Clip: its probabilities are turned back into logits, and run', async () => {
    const files = await readPackageDir(TINY('forms/clip'));
    const withConfig: PackageFiles = {
      'weights.onnx': files['weights.onnx']!,
      'class_names.txt': files['class_names.txt']!,
      'inference_config.json': enc(
        JSON.stringify({
          network_input: {
            training_input_size: { height: 40, width: 40 },
            dynamic_spatial_size_supported: false,
            color_mode: 'rgb',
            resize_mode: 'letterbox',
            padding_value: 127,
            input_channels: 3,
            scaling_factor: 255,
            normalization: [
              [0.485, 0.456, 0.406],
              [0.229, 0.224, 0.225],
            ],
          },
          post_processing: { type: 'sigmoid', fused: true },
        }),
      ),
    };
    const { spec } = parseModelPackage(withConfig);
    expect(spec.form.output.form).toBe('sigmoid');
    expect(spec.form.changes.join()).toMatch(/turned back into logits, log\(p \/ \(1 − p\)\)/);
    // Run: the mask agrees with the logits twin (tiny-binary) wherever the probability is not saturated.
    const seg = await createSegmenter({ model: { files: withConfig }, numThreads: 1 });
    const twin = await createSegmenter({ model: TINY('tiny-binary'), numThreads: 1 });
    const file = fixturePath(manifest.endToEnd.find((c) => c.package === 'tiny-binary')!.file);
    const [a, b] = await Promise.all([seg.segmentRaw(file), twin.segmentRaw(file)]);
    let same = 0;
    for (let i = 0; i < a.classIds.length; i++) if (a.classIds[i] === b.classIds[i]) same++;
    expect(same / a.classIds.length).toBeGreaterThan(0.99);
    await Promise.all([seg.dispose(), twin.dispose()]);
  });
});

test('a TensorFlow Lite file where weights.onnx should be says so', async () => {
  // MediaPipe's selfie segmenter is TFLite (bytes 4-7 "TFL3"); the bundled people models were converted from it.
  const tflite = new Uint8Array(await readFile(join(TINY('tiny-legacy'), 'weights.onnx')));
  tflite.set(enc('\x1c\0\0\0TFL3'), 0);
  expect(refusal(pkg(tflite))).toMatch(/it is a TensorFlow Lite model: convert it to ONNX first/);
});

describe('refusals that name the file to write', () => {
  test('{ files } with the model under its own name: names weights.onnx and the command that writes a package', async () => {
    const files = await readPackageDir(TINY('forms/sigmoid'));
    const renamed: PackageFiles = { 'u2netp.onnx': files['weights.onnx']!, 'class_names.txt': files['class_names.txt']! };
    expect(refusal(renamed)).toMatch(
      /MODEL_FILE_MISSING: the package has no weights.onnx but a "u2netp.onnx": .*`npx edgeseg package u2netp.onnx --classes background,…`/,
    );
  });

  test('a legacy package (environment.json) whose graph cannot tell: the refusal says to write an inference_config.json', async () => {
    expect(refusal(await readPackageDir(TINY('forms/clip')))).toMatch(
      /ends in a Clip, .*this package is in the legacy layout, whose environment.json has no such field: write an inference_config.json in its place/,
    );
  });
});

test.each(['native', 'wasm'] as const)(
  '%s: dims that are unknown and unnamed (dim_value -1, as paddle2onnx writes, or neither value nor name) are dynamic',
  async (backend) => {
    // onnxruntime-web reports such a dim as 4294967295 (-1 as an unsigned 32-bit number), onnxruntime-node as "".
    const unnamed = { name: 'x', type: { tensor_type: { elem_type: 1, shape: { dim: [{}, { dim_value: 3 }, {}, {}] } } } };
    for (const input of [tensorInfo('x', [-1, 3, -1, -1]), unnamed]) {
      const weights = graphModel([{ op_type: 'Relu', input: ['x'], output: ['y'] }], input, [tensorInfo('y', [-1, 3, -1, -1])]);
      const seg = await createSegmenter({ model: { files: pkg(weights) }, backends: [backend], numThreads: 1 });
      try {
        expect(seg.spec.preprocess.resize).toMatchObject({ width: 32, height: 32 });
        const file = fixturePath(manifest.endToEnd[0]!.file);
        expect((await seg.segment(file)).image).toEqual({ width: manifest.endToEnd[0]!.width, height: manifest.endToEnd[0]!.height });
      } finally {
        await seg.dispose();
      }
    }
  },
);

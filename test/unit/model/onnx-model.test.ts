// weights.onnx is read and checked before any runtime sees it: what hosts and broken downloads hand over instead
// (an HTML page, a JSON error, half a file, another kind of model) is MODEL_LOAD_FAILED with a message that says
// so, and a model whose tensors live in other files is refused wherever in the model they are.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseModelPackage } from '../../../src/model/index.js';
import { readPackageDir } from '../../../src/node/index.js';
import { INDEX_HTML } from '../../fixtures/hostile-host.js';
import { ROOT, TINY } from '../../helpers/paths.js';
import { modelCheckVerdict as messageOf } from '../../helpers/model-check.js';

const tiny = readFileSync(join(TINY('tiny-legacy'), 'weights.onnx'));

describe('readOnnxModel', () => {
  test.each([
    'test/fixtures/models/tiny-legacy',
    'test/fixtures/models/tiny-current',
    'test/fixtures/models/tiny-upsample',
    'models/shapes/package',
  ])('%s: accepted', (dir) => {
    expect(messageOf(readFileSync(join(ROOT, dir, 'weights.onnx')))).toBe('accepted');
  });

  const refused: [string, Uint8Array, string][] = [
    ['an HTML page', new TextEncoder().encode(INDEX_HTML), '(it is an HTML page)'],
    ['a JSON error', new TextEncoder().encode('{"error":{"message":"Not Found"}}'), '(it is JSON text)'],
    ['the first half of a model', tiny.subarray(0, tiny.length >> 1), 'past the end (a truncated download?)'],
    ['a model with one byte cut off', tiny.subarray(0, tiny.length - 1), 'weights.onnx is not an ONNX model'],
    ['a graph with no ir_version', new Uint8Array([0x3a, 0x00]), 'it has no ir_version'],
    ['an ir_version with no graph', new Uint8Array([0x08, 0x07]), 'it has no graph'],
    // onnxruntime's reader skips a known field of another wire type as unknown: so is it here.
    ['a graph field with the wrong wire type', new Uint8Array([0x08, 0x07, 0x38, 0x00]), 'it has no graph'],
    [
      'a TensorFlow Lite model',
      new Uint8Array([0x1c, 0, 0, 0, 0x54, 0x46, 0x4c, 0x33, 0, 0, 0x12, 0]),
      'it is a TensorFlow Lite model: convert it to ONNX',
    ],
    ['an ORT-format model', new Uint8Array([0x0c, 0, 0, 0, 0x4f, 0x52, 0x54, 0x4d, 0, 0, 0, 0]), "onnxruntime's own ORT format"],
    ['a PyTorch checkpoint', new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0]), 'export the model with torch.onnx.export'],
    ['a PNG', readFileSync(join(ROOT, 'test', 'fixtures', 'images', 'sample.png')), 'weights.onnx is not an ONNX model'],
  ];
  test.each(refused)('%s: MODEL_LOAD_FAILED', (_, bytes, says) => {
    expect(messageOf(bytes)).toContain(says);
  });
});

test('a package whose weights are a JSON error is refused at parse time, before any runtime', async () => {
  const files = await readPackageDir(TINY('tiny-legacy'));
  files['weights.onnx'] = new TextEncoder().encode('{"error":"model not found"}');
  expect(() => parseModelPackage(files)).toThrowError(expect.objectContaining({ code: 'MODEL_LOAD_FAILED' }));
});

describe('external tensor data (a model package is one file)', () => {
  /** Protobuf encoding, enough for hand-made ModelProtos. */
  const concat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));
  const varint = (n: number) => {
    const out: number[] = [];
    for (; n >= 0x80; n = Math.floor(n / 128)) out.push((n & 0x7f) | 0x80);
    return [...out, n];
  };
  const bytesField = (number: number, payload: Uint8Array | string) => {
    const p = typeof payload === 'string' ? new TextEncoder().encode(payload) : payload;
    return concat(new Uint8Array([...varint(number * 8 + 2), ...varint(p.length)]), p);
  };
  const intField = (number: number, value: number) => new Uint8Array([...varint(number * 8), ...varint(value)]);
  const entry = (key: string, value: string) => concat(bytesField(1, key), bytesField(2, value));
  // TensorProto: dims 1, data_type 1 (float), name, data_location 14, external_data 13.
  const externalTensor = (name: string, location = 'package.json') =>
    concat(intField(1, 1), intField(2, 1), bytesField(8, name), bytesField(13, entry('location', location)), intField(14, 1));
  const model = (graph: Uint8Array, ...more: Uint8Array[]) => concat(intField(1, 8), bytesField(7, graph), ...more);
  // A node whose attribute (NodeProto 5) carries `field` of AttributeProto.
  const nodeWith = (attribute: Uint8Array) =>
    bytesField(1, concat(bytesField(1, 'x'), bytesField(5, concat(bytesField(1, 'value'), attribute))));

  test('the fixture: tiny-legacy whose initializers point into package.json', () => {
    const message = messageOf(readFileSync(join(TINY('external-data'), 'weights.onnx')));
    expect(message).toContain('weights.onnx keeps tensor data outside the file');
    expect(message).toContain('"classify.weight" names the file "package.json"');
    expect(message).toContain('a model package is one file');
  });

  test.each<[string, Uint8Array]>([
    ['an initializer', model(bytesField(5, externalTensor('w')))],
    ['an initializer marked EXTERNAL with no entries', model(bytesField(5, concat(bytesField(8, 'w'), intField(14, 1))))],
    ['a sparse initializer', model(bytesField(15, bytesField(1, externalTensor('w'))))],
    ["a Constant node's tensor", model(nodeWith(bytesField(5, externalTensor('w'))))],
    ["a node's tensor list", model(nodeWith(bytesField(10, externalTensor('w'))))],
    ["an If branch's initializer", model(nodeWith(bytesField(6, bytesField(5, externalTensor('w')))))],
    [
      'a function',
      model(new Uint8Array(), bytesField(25, bytesField(7, concat(bytesField(1, 'x'), bytesField(5, bytesField(5, externalTensor('w'))))))),
    ],
    ['training info', model(new Uint8Array(), bytesField(20, bytesField(1, bytesField(5, externalTensor('w')))))],
  ])('in %s: MODEL_LOAD_FAILED', (_, bytes) => {
    expect(messageOf(bytes)).toContain('weights.onnx keeps tensor data outside the file');
  });

  test.each<[string, number[], string]>([
    ['EXTERNAL as 2^32 + 1 (an int32 reader keeps the low bits)', [0x70, 0x81, 0x80, 0x80, 0x80, 0x10], 'is marked external'],
    ['EXTERNAL padded to two bytes', [0x70, 0x81, 0x00], 'is marked external'],
    // A singular enum sent length-delimited is an unknown field to onnxruntime's reader: dropped, not EXTERNAL.
    ['a length-delimited data_location', [0x72, 0x01, 0x01], 'accepted'],
    ['a data_location outside the enum (5)', [0x70, 0x05], 'accepted'],
    ['DEFAULT padded to two bytes', [0x70, 0x80, 0x00], 'accepted'],
  ])('data_location spelled as %s', (_, location, verdict) => {
    const tensor = concat(intField(1, 1), intField(2, 1), bytesField(8, 'w'), new Uint8Array(location));
    const message = messageOf(model(bytesField(5, tensor)));
    expect(verdict === 'accepted' ? message : message.includes(verdict) && verdict).toBe(verdict);
  });

  // hidden-external-data: the same, with the tags of external_data and data_location in 5 bytes with bits
  // above 32 set (onnxruntime keeps a tag's low 32 bits; a reader of whole varints skipped them).
  test.each(['external-data', 'hidden-external-data'])(
    'in Node: %s is refused before onnxruntime reads the file it names',
    async (name) => {
      const { createSegmenter } = await import('../../../src/node/index.js');
      const error = await createSegmenter({ model: TINY(name) }).then(
        () => null,
        (e: unknown) => e as { code: string; message: string },
      );
      expect(error?.code).toBe('MODEL_LOAD_FAILED');
      expect(error?.message).toContain('tensor "classify.weight" names the file "package.json"');
    },
  );

  test('hidden-external-data is what its generator writes, and onnxruntime finds its file reference', async () => {
    const { hiddenWeights } = await import('../../fixtures/models/make-hidden-external-data.js');
    const committed = readFileSync(join(TINY('hidden-external-data'), 'weights.onnx'));
    expect(Buffer.from(hiddenWeights()).equals(committed)).toBe(true);
    const ort = await import('onnxruntime-node');
    // From bytes, onnxruntime asks for the model's folder to resolve the file against: it read the reference.
    await expect(ort.InferenceSession.create(new Uint8Array(committed))).rejects.toThrow(/model_path must not be empty/);
  });
});

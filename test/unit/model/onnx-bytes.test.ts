// weights.onnx is checked to be a ModelProto before the runtime sees it: what hosts and broken downloads hand
// over instead (an HTML page, a JSON error, half a file) is MODEL_LOAD_FAILED with a message that says so.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { checkOnnxModel, parseModelPackage } from '../../../src/model/index.js';
import { readPackageDir } from '../../../src/node/index.js';
import { INDEX_HTML } from '../../fixtures/hostile-host.js';
import { ROOT, TINY } from '../../helpers/paths.js';

const tiny = readFileSync(join(TINY('tiny-legacy'), 'weights.onnx'));
const messageOf = (bytes: Uint8Array) => {
  try {
    checkOnnxModel(bytes);
    return 'accepted';
  } catch (e) {
    expect((e as { code: string }).code).toBe('MODEL_LOAD_FAILED');
    return (e as Error).message;
  }
};

describe('checkOnnxModel', () => {
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
    ['a graph field with the wrong wire type', new Uint8Array([0x08, 0x07, 0x38, 0x00]), 'field 7 has wire type 0'],
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

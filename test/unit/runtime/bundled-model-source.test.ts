// Where the worker asks for a bundled model's files: as the bundler gave them, and from the package's own
// folder where a dev server's dependency optimizer moved the model's module without rewriting its URLs.
import { describe, expect, test } from 'vitest';
import { bundledFileUrl, bundledModelSource } from '../../../src/runtime/bundled-model-source.js';

describe('bundledFileUrl', () => {
  test.each([
    // A build (Vite, webpack): hashed names, kept.
    ['https://app.example/assets/weights-B7skOSyE.onnx', 'https://app.example/assets/weights-B7skOSyE.onnx'],
    // No bundler, or Vite 8's optimizer (which rewrites the URL into the package): kept.
    [
      'http://localhost:5173/node_modules/edgeseg/models/people/general/weights.onnx',
      'http://localhost:5173/node_modules/edgeseg/models/people/general/weights.onnx',
    ],
    ['data:application/json;base64,e30=', 'data:application/json;base64,e30='],
    // Vite 5–7's optimizer: node_modules/.vite/deps/ + ../../models/ lands in node_modules/models/.
    [
      'http://localhost:5173/node_modules/models/people/general/weights.onnx',
      'http://localhost:5173/node_modules/edgeseg/models/people/general/weights.onnx',
    ],
    // …under the app's base path.
    [
      'http://localhost:5173/app/node_modules/models/shapes/package/class_names.txt?v=1',
      'http://localhost:5173/app/node_modules/edgeseg/models/shapes/package/class_names.txt?v=1',
    ],
    // Angular's optimizer, in its cache under the project, served through /@fs/.
    [
      'http://localhost:4200/@fs/home/me/app/.angular/cache/21.2.26/app/models/people/landscape/weights.onnx',
      'http://localhost:4200/@fs/home/me/app/node_modules/edgeseg/models/people/landscape/weights.onnx',
    ],
  ])('%s → %s', (given, expected) => {
    expect(bundledFileUrl(new URL(given))).toBe(expected);
  });

  test("the worker's source names each file", () => {
    const urls = { 'weights.onnx': new URL('http://h/node_modules/models/people/general/weights.onnx') };
    expect(bundledModelSource({ name: 'people', urls })).toEqual({
      kind: 'urls',
      urls: { 'weights.onnx': 'http://h/node_modules/edgeseg/models/people/general/weights.onnx' },
      files: {},
    });
  });
});

import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSegmenter, rawFromPayload, type Segmenter } from '../../src/index.js';
import { injectFault } from '../../src/runtime/segmenter-internals.js';
import manifest from '../fixtures/reference/manifest.json';
import { stringMatching } from '../helpers/matchers.js';

// SwiftShader's WebGPU adapter: correct but slow, so tiny models only.
const files = [...new Set(manifest.endToEnd.map((c) => c.file))];
const bytesOf = async (file: string) => new Uint8Array(await (await fetch(`/test/fixtures/reference/${file}`)).arrayBuffer());

// Letterbox, static crop, C = K − 1 and sigmoid: every branch of the GPU postprocessing shader, each
// compared with the CPU postprocessing of the wasm backend, at the default confidence and a high one.
const models = ['tiny-legacy', 'tiny-current', 'tiny-nobg', 'tiny-binary'];

for (const model of models) {
  describe(`${model}: webgpu gives the class ids wasm gives`, () => {
    let gpu: Segmenter;
    let cpu: Segmenter;
    let mixed = 0; // results with more than one class: the comparison is not between two blank masks
    beforeAll(async () => {
      gpu = await createSegmenter({ model: `/test/fixtures/models/${model}/`, backends: ['webgpu'] });
      cpu = await createSegmenter({ model: `/test/fixtures/models/${model}/`, backends: ['wasm'] });
    });
    afterAll(async () => {
      await gpu.dispose();
      await cpu.dispose();
    });

    test('the WebGPU backend loads on the adapter', () => {
      expect(gpu.backend).toBe('webgpu');
      expect(gpu.fallbacks).toEqual([]);
      console.log(`WebGPU adapter: ${gpu.adapter}`);
    });

    for (const file of files) {
      for (const confidence of [50, 90]) {
        test(`${file} at confidence ${confidence}`, async () => {
          const a = rawFromPayload(await gpu.segment(await bytesOf(file), { confidence })).classIds;
          const b = rawFromPayload(await cpu.segment(await bytesOf(file), { confidence })).classIds;
          let equal = 0;
          for (let i = 0; i < a.length; i++) if (a[i] === b[i]) equal++;
          console.log(`${model} ${file} @${confidence}: ${((100 * equal) / a.length).toFixed(4)}% of pixels equal between webgpu and wasm`);
          if (new Set(b).size > 1) mixed++;
          expect(equal).toBe(a.length);
        });
      }
    }

    test('the comparisons covered masks with several classes', () => expect(mixed).toBeGreaterThan(0));
  });
}

test('a WebGPU failure while running moves the call to wasm', async () => {
  const seg = await createSegmenter({ model: '/test/fixtures/models/tiny-legacy/', backends: ['webgpu', 'wasm'] });
  const expected = await seg.segment(await bytesOf(files[0]!));
  await injectFault(seg, 'run');
  expect(await seg.segment(await bytesOf(files[0]!))).toEqual(expected);
  expect(seg.backend).toBe('wasm');
  expect(seg.fallbacks).toEqual([{ backend: 'webgpu', code: 'BACKEND_FAILED', message: stringMatching(/webgpu backend failed/) }]);
  await seg.dispose();
});

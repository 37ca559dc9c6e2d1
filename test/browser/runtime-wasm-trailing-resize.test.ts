import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { commands } from 'vitest/browser';
import { createSegmenter, type Segmenter } from '../../src/index.js';
import { cutTrailingResize, onnxModel, readOnnxModel } from '../../src/model/index.js';
import { bytesOf, expectSamePayload } from './same-payload.js';
import manifest from '../fixtures/reference/manifest.json';

// tiny-upsample ends, as torchvision's LRASPP does, in a bilinear Resize to the input size. The WASM
// worker runs it without that node and postprocesses the small logits as virtually upsampled; Node
// native (the local platform's route) runs the full graph.
const files = [...new Set(manifest.endToEnd.map((c) => c.file))];
const model = 'test/fixtures/models/tiny-upsample';

describe('wasm in Chromium without the trailing Resize gives the Node native payload', () => {
  let seg: Segmenter;
  beforeAll(async () => {
    seg = await createSegmenter({ model: `/${model}/`, backends: ['wasm'], numThreads: 2 });
  });
  afterAll(async () => {
    await seg.dispose();
  });

  test('the worker cuts this model: it ends in a Resize to its 64×48 input', async () => {
    const weights = new Uint8Array(await (await fetch(`/${model}/weights.onnx`)).arrayBuffer());
    const cut = cutTrailingResize(readOnnxModel(weights).proto);
    expect(cut?.outputDims).toEqual([1, 5, 48, 64]);
    expect(onnxModel(cut!.model).bytes().length).toBeLessThan(weights.length);
  });

  for (const file of files) {
    for (const confidence of [0, 50, 100]) {
      test(`${file} at confidence ${confidence}`, async () => {
        expect(seg.backend).toBe('wasm');
        const [browser, node] = await Promise.all([
          seg.segment(await bytesOf(file), { confidence }),
          commands.nodeSegment(model, `test/fixtures/reference/${file}`, confidence),
        ]);
        expectSamePayload(file, browser, node, `tiny-upsample ${file} c${confidence}`);
      });
    }
  }
});

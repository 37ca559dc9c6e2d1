import { readFile } from 'node:fs/promises';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cutTrailingResize, onnxModel, parseModelPackage, type ModelSpec } from '../../../src/model/index.js';
import { decodeImage, readPackageDir } from '../../../src/node/index.js';
import { classIdsFromLogits, preprocess, type Logits, type PixelImage, type PreprocessSpec } from '../../../src/pipeline/index.js';
import { fixturePath, manifest } from '../../fixtures/reference/fixtures.js';
import { TINY } from '../../helpers/paths.js';

// Postprocessing on the cut model's logits, marked as virtually upsampled, against postprocessing on
// the full graph's output (onnxruntime-node, as the Node backends and the local platform run it).
const files = [...new Set(manifest.endToEnd.map((c) => c.file))];
const variants: Record<string, (p: PreprocessSpec) => PreprocessSpec> = {
  letterbox: (p) => p,
  stretch: (p) => ({ ...p, resize: { ...p.resize, mode: 'stretch' } }),
  'letterbox, static crop': (p) => ({ ...p, staticCrop: { xMin: 10, yMin: 5, xMax: 95, yMax: 90 } }),
  // Negative padding: postprocessing materialises the upsampled logits (the worker does not cut these).
  'centre crop': (p) => ({ ...p, resize: { ...p.resize, mode: 'center-crop' } }),
};

describe('class ids from virtual upsampled logits equal those from the full graph', () => {
  let spec: ModelSpec;
  let full: ort.InferenceSession;
  let plain: ort.InferenceSession;
  let cutSession: ort.InferenceSession;
  let outputName: string;
  const images = new Map<string, PixelImage>();
  beforeAll(async () => {
    const pkg = parseModelPackage(await readPackageDir(TINY('tiny-upsample')));
    spec = pkg.spec as ModelSpec;
    const cut = cutTrailingResize(pkg.model.proto)!;
    outputName = cut.outputName;
    full = await ort.InferenceSession.create(pkg.model.bytes(), { graphOptimizationLevel: 'all', intraOpNumThreads: 1 });
    plain = await ort.InferenceSession.create(pkg.model.bytes(), { graphOptimizationLevel: 'extended', intraOpNumThreads: 1 });
    cutSession = await ort.InferenceSession.create(onnxModel(cut.model).bytes(), { graphOptimizationLevel: 'all', intraOpNumThreads: 1 });
    for (const file of files) images.set(file, await decodeImage(await readFile(fixturePath(file))));
  });
  afterAll(async () => {
    await Promise.all([full.release(), plain.release(), cutSession.release()]);
  });

  const logitsOf = async (session: ort.InferenceSession, name: string, input: Float32Array, dims: number[]): Promise<Logits> => {
    const t = (await session.run({ input: new ort.Tensor('float32', input, dims) }))[name]!;
    const [, channels, height, width] = t.dims as number[];
    return { data: t.data as Float32Array, channels: channels!, height: height!, width: width! };
  };

  for (const [variant, adjust] of Object.entries(variants)) {
    for (const file of files) {
      test(`${variant}, ${file}`, async () => {
        const image = images.get(file)!;
        const { tensor, meta } = preprocess(image, adjust(spec.preprocess));
        const dims = [1, 3, meta.inputHeight, meta.inputWidth];
        const reference = await logitsOf(full, 'logits', tensor, dims);
        const exact = await logitsOf(plain, 'logits', tensor, dims);
        const low = await logitsOf(cutSession, outputName, tensor, dims);
        expect([low.height, low.width]).toEqual([12, 16]);
        const virtual: Logits = { ...low, upsample: { height: 48, width: 64, mode: 'onnx-linear-half-pixel' } };
        for (const confidence of [0, 50, 100]) {
          const options = { confidence, classCount: 5, backgroundClassId: 0 };
          const got = classIdsFromLogits(virtual, meta, options);
          const want = classIdsFromLogits(reference, meta, options);
          let differing = 0;
          for (let i = 0; i < want.length; i++) if (got[i] !== want[i]) differing++;
          // The same logits through the plain path: equal to the last pixel.
          expect(classIdsFromLogits(exact, meta, options)).toEqual(got);
          expect(differing).toBe(0);
          expect(new Set(got).size).toBeGreaterThan(confidence === 100 ? 0 : 1);
        }
      });
    }
  }
});

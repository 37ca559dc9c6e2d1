// Models as they come from the wild (test/fixtures/models/forms: the tiny networks ending in a Sigmoid, a
// Softmax, a LogSoftmax or an ArgMax, taking or giving NHWC, float16 I/O, the logits as a second output): edgeseg
// reads each one's form from its graph and gives, on every pixel, the reference mask of its logits twin (the base
// package, through the reference pipeline), with nothing configured.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSegmenter, rawFromPayload, readPackageDir, type NodeSegmenter } from '../../../src/node/index.js';
import { parseModelPackage } from '../../../src/model/index.js';
import { compareClassIds, fixturePath, loadUint8, manifest } from '../../fixtures/reference/fixtures.js';
import { TINY } from '../../helpers/paths.js';

const FORM = (name: string) => TINY(`forms/${name}`);

/** Each form, its logits twin, what edgeseg reads of it, and how many pixels may differ from the twin's reference. */
const FORMS: { name: string; twin: string; form: string; layout: string; changes: RegExp[]; tolerance?: number }[] = [
  { name: 'sigmoid', twin: 'tiny-binary', form: 'sigmoid', layout: 'nchw', changes: [/taken before its final Sigmoid/] },
  { name: 'sigmoid-resize', twin: 'tiny-binary', form: 'sigmoid', layout: 'nchw', changes: [/taken before its final Sigmoid, Resize/] },
  { name: 'softmax', twin: 'tiny-legacy', form: 'softmax', layout: 'nchw', changes: [/taken before its final Softmax/] },
  { name: 'log-softmax', twin: 'tiny-legacy', form: 'log-softmax', layout: 'nchw', changes: [/taken before its final LogSoftmax/] },
  { name: 'argmax', twin: 'tiny-legacy', form: 'argmax', layout: 'nchw', changes: [/taken before its final ArgMax/] },
  { name: 'softmax-argmax', twin: 'tiny-legacy', form: 'argmax', layout: 'nchw', changes: [/taken before its final Softmax, ArgMax/] },
  {
    name: 'nhwc',
    twin: 'tiny-legacy',
    form: 'logits',
    layout: 'nhwc',
    changes: [/transposed to the model’s NHWC input/, /NHWC output is transposed to NCHW/],
  },
  {
    name: 'nhwc-softmax',
    twin: 'tiny-legacy',
    form: 'softmax',
    layout: 'nhwc',
    changes: [/transposed to the model’s NHWC input/, /taken before its final Softmax/, /NHWC output is transposed/],
  },
  // float16 logits: rounding to half precision may flip the answer where two classes (or the threshold) are
  // within a float16 step; a handful of pixels at most.
  {
    name: 'float16-io',
    twin: 'tiny-legacy',
    form: 'logits',
    layout: 'nchw',
    changes: [/cast to the model’s float16 input/, /float16 output is cast to float32/],
    tolerance: 0.002,
  },
  { name: 'second-output', twin: 'tiny-legacy', form: 'logits', layout: 'nchw', changes: [/other outputs \("colours"\) are left out/] },
];

describe('what edgeseg reads of each form', () => {
  test.each(FORMS)('$name: $form, $layout', async ({ name, form, layout, changes }) => {
    const { spec } = parseModelPackage(await readPackageDir(FORM(name)));
    expect(spec.form.output.form).toBe(form);
    expect(spec.form.output.layout).toBe(layout);
    for (const change of changes) expect(spec.form.changes.join('\n')).toMatch(change);
  });

  test('logits in the platform’s form are run as they are, with nothing changed', async () => {
    const { spec, model } = parseModelPackage(await readPackageDir(TINY('tiny-legacy')));
    expect(spec.form).toEqual({
      input: { name: 'input', layout: 'nchw', type: 'float32' },
      output: { name: 'logits', form: 'logits', layout: 'nchw', type: 'float32', channels: 5 },
      ignoredOutputs: [],
      changes: [],
    });
    expect(Buffer.from(model.bytes()).equals(Buffer.from((await readPackageDir(TINY('tiny-legacy')))['weights.onnx']!))).toBe(true);
  });
});

for (const backend of ['native', 'wasm'] as const) {
  describe(`${backend}: each form gives its logits twin's reference mask`, () => {
    const segmenters = new Map<string, NodeSegmenter>();
    beforeAll(async () => {
      for (const { name } of FORMS) segmenters.set(name, await createSegmenter({ model: FORM(name), backends: [backend], numThreads: 1 }));
    });
    afterAll(async () => {
      for (const s of segmenters.values()) await s.dispose();
    });
    for (const { name, twin, tolerance } of FORMS) {
      const cases = manifest.endToEnd.filter((c) => c.package === twin);
      test(`${name} (${cases.length} images and confidences of ${twin})`, async () => {
        const seg = segmenters.get(name)!;
        for (const c of cases) {
          const payload = await seg.segment(fixturePath(c.file), { confidence: c.confidence });
          expect(payload.image).toEqual({ width: c.width, height: c.height });
          const { wrong } = compareClassIds(rawFromPayload(payload).classIds, loadUint8(c.classIds), loadUint8(c.ambiguous));
          expect(wrong / (c.width * c.height), c.name).toBeLessThanOrEqual(tolerance ?? 0);
        }
      });
    }
  });
}

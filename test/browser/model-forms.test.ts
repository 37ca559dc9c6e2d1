// Models as they come from the wild, in the browser's worker (WASM): each form (a final Sigmoid, ArgMax, NHWC with a
// Softmax, float16 I/O, the logits as a second output) is read from its graph and run as in Node, on every pixel.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { commands } from 'vitest/browser';
import { createSegmenter, type Segmenter } from '../../src/index.js';
import { bytesOf, expectSamePayload } from './same-payload.js';

const forms = ['sigmoid', 'argmax', 'nhwc-softmax', 'float16-io', 'second-output'];
const image = 'data/shapes-300x200.png';

describe('a model from the wild in the browser gives the Node payload', () => {
  const segs = new Map<string, Segmenter>();
  beforeAll(async () => {
    for (const form of forms)
      segs.set(
        form,
        await createSegmenter({ model: `/test/fixtures/models/forms/${form}/`, backends: ['wasm'], numThreads: 1, cache: false }),
      );
  });
  afterAll(async () => {
    for (const s of segs.values()) await s.dispose();
  });

  for (const form of forms) {
    test(form, async () => {
      const seg = segs.get(form)!;
      expect(seg.backend).toBe('wasm');
      expect(seg.spec?.form.output.form).toBe(
        form === 'argmax' ? 'argmax' : form === 'sigmoid' ? 'sigmoid' : form === 'nhwc-softmax' ? 'softmax' : 'logits',
      );
      const [browser, node] = await Promise.all([
        seg.segment(await bytesOf(image), { confidence: 50 }),
        commands.nodeSegment(`test/fixtures/models/forms/${form}`, `test/fixtures/reference/${image}`, 50),
      ]);
      expectSamePayload(image, browser, node, `${form} ${image}`);
    });
  }

  test('a model that fits no reading is refused in the worker with the message that says what to write', async () => {
    const error = await createSegmenter({ model: '/test/fixtures/models/forms/clip/', backends: ['wasm'], cache: false }).catch(
      (e: unknown) => e,
    );
    // The worker's ModelPackageError crosses to the page with its class and code (as the cause where the only backend failed).
    const refusal =
      (error as { code?: string; cause?: { code?: string; message?: string } }).cause ?? (error as { code?: string; message?: string });
    expect(refusal.code).toBe('MODEL_OUTPUT_SHAPE');
    expect(refusal.message).toContain('ends in a Clip, which may give probabilities or scores: say which in inference_config.json');
  });
});

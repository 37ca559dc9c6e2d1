import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { commands } from 'vitest/browser';
import { createSegmenter, rawFromPayload, type SegmentationPayload, type Segmenter } from '../../src/index.js';
import manifest from '../fixtures/reference/manifest.json';
import samples from '../../models/shapes/samples/manifest.json';

const files = [...new Set(manifest.endToEnd.map((c) => c.file))];
const packages = ['tiny-legacy', 'tiny-current', 'tiny-nobg', 'tiny-binary'];
const bytesOf = async (file: string) => new Uint8Array(await (await fetch(`/test/fixtures/reference/${file}`)).arrayBuffer());

/** Compares a browser payload with the Node one, prints the share of equal mask pixels, and asserts on it. */
function expectSamePayload(label: string, browser: SegmentationPayload, node: SegmentationPayload): void {
  expect(browser.class_map).toEqual(node.class_map);
  expect(browser.image).toEqual(node.image);
  const a = rawFromPayload(browser).classIds;
  const b = rawFromPayload(node).classIds;
  expect(a.length).toBe(b.length);
  let equal = 0;
  for (let i = 0; i < a.length; i++) if (a[i] === b[i]) equal++;
  const share = equal / a.length;
  console.log(`${label}: ${(share * 100).toFixed(4)}% of ${a.length} mask pixels equal to Node native`);
  expect(share).toBeGreaterThanOrEqual(0.9999);
}

describe('wasm in Chromium gives the Node native payload', () => {
  const segs = new Map<string, Segmenter>();
  beforeAll(async () => {
    for (const p of packages) segs.set(p, await createSegmenter({ model: `/test/fixtures/models/${p}/`, backends: ['wasm'], numThreads: 2 }));
  });
  afterAll(async () => {
    for (const s of segs.values()) await s.dispose();
  });

  for (const p of packages) {
    for (const file of files) {
      test(`${p} on ${file}`, async () => {
        const seg = segs.get(p)!;
        expect(seg.backend).toBe('wasm');
        const [browser, node] = await Promise.all([seg.segment(await bytesOf(file), { confidence: 50 }), commands.nodeSegment(`test/fixtures/models/${p}`, `test/fixtures/reference/${file}`, 50)]);
        expectSamePayload(`${p} ${file}`, browser, node);
      });
    }
  }
});

// The bundled model, both export layouts, on a few of its sample images of different sizes. The Node
// reference is computed now, from whatever weights the package holds today.
describe('wasm in Chromium gives the Node native payload: the bundled model', () => {
  const bundled = ['models/shapes/package', 'models/shapes/package-current'];
  const sizes = new Set<string>();
  const images = samples.images.filter((i) => !sizes.has(`${i.width}x${i.height}`) && sizes.add(`${i.width}x${i.height}`)).slice(0, 3);
  const segs = new Map<string, Segmenter>();
  beforeAll(async () => {
    for (const p of bundled) segs.set(p, await createSegmenter({ model: `/${p}/`, backends: ['wasm'], numThreads: 2 }));
  });
  afterAll(async () => {
    for (const s of segs.values()) await s.dispose();
  });

  test('three sample images of different sizes are picked', () => {
    expect(images.length).toBe(3);
  });

  for (const p of bundled) {
    for (const image of images) {
      test(`${p} on ${image.name} (${image.width}×${image.height})`, async () => {
        const seg = segs.get(p)!;
        expect(seg.backend).toBe('wasm');
        const path = `models/shapes/samples/${image.file}`;
        const bytes = new Uint8Array(await (await fetch(`/${path}`)).arrayBuffer());
        const [browser, node] = await Promise.all([seg.segment(bytes, { confidence: 50 }), commands.nodeSegment(p, path, 50)]);
        expect(browser.image).toEqual({ width: image.width, height: image.height });
        expectSamePayload(`${p} ${image.name}`, browser, node);
      });
    }
  }
});

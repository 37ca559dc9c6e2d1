import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { commands } from 'vitest/browser';
import { createSegmenter, type Segmenter } from '../../src/index.js';
import { bytesOf, expectSamePayload } from './same-payload.js';
import manifest from '../fixtures/reference/manifest.json';
import samples from '../../models/shapes/samples/manifest.json';

const files = [...new Set(manifest.endToEnd.map((c) => c.file))];
const packages = ['tiny-legacy', 'tiny-current', 'tiny-nobg', 'tiny-binary', 'tiny-yolo26'];

describe('wasm in the browser gives the Node native payload', () => {
  const segs = new Map<string, Segmenter>();
  beforeAll(async () => {
    for (const p of packages)
      segs.set(p, await createSegmenter({ model: `/test/fixtures/models/${p}/`, backends: ['wasm'], numThreads: 2 }));
  });
  afterAll(async () => {
    for (const s of segs.values()) await s.dispose();
  });

  for (const p of packages) {
    for (const file of files) {
      test(`${p} on ${file}`, async () => {
        const seg = segs.get(p)!;
        expect(seg.backend).toBe('wasm');
        const [browser, node] = await Promise.all([
          seg.segment(await bytesOf(file), { confidence: 50 }),
          commands.nodeSegment(`test/fixtures/models/${p}`, `test/fixtures/reference/${file}`, 50),
        ]);
        expectSamePayload(file, browser, node, `${p} ${file}`);
      });
    }
  }
});

// The bundled model, both export layouts, on a few of its sample images of different sizes. The Node
// reference is computed now, from whatever weights the package holds today.
describe('wasm in the browser gives the Node native payload: the bundled model', () => {
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
        expectSamePayload(image.file, browser, node, `${p} ${image.name}`);
      });
    }
  }
});

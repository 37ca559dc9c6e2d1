import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { commands } from 'vitest/browser';
import { createSegmenter, rawFromPayload, type Segmenter } from '../../src/index.js';
import manifest from '../fixtures/reference/manifest.json';

const files = [...new Set(manifest.endToEnd.map((c) => c.file))];
const packages = ['tiny-legacy', 'tiny-current', 'tiny-nobg', 'tiny-binary'];
const bytesOf = async (file: string) => new Uint8Array(await (await fetch(`/test/fixtures/reference/${file}`)).arrayBuffer());

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
        expect(browser.class_map).toEqual(node.class_map);
        expect(browser.image).toEqual(node.image);
        const a = rawFromPayload(browser).classIds;
        const b = rawFromPayload(node).classIds;
        let equal = 0;
        for (let i = 0; i < a.length; i++) if (a[i] === b[i]) equal++;
        const share = equal / a.length;
        console.log(`${p} ${file}: ${(share * 100).toFixed(4)}% of ${a.length} mask pixels equal to Node native`);
        expect(share).toBeGreaterThanOrEqual(0.9999);
      });
    }
  }
});

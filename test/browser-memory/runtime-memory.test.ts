import { expect, test } from 'vitest';
import { createSegmenter } from '../../src/index.js';
import manifest from '../fixtures/reference/manifest.json';

const IMAGE = manifest.endToEnd.find((c) => c.file.endsWith('300x200.png'))!.file;

// Page and worker memory together, as the browser accounts it (needs cross-origin isolation).
async function memory(): Promise<number> {
  const measure = (performance as Performance & { measureUserAgentSpecificMemory?: () => Promise<{ bytes: number }> }).measureUserAgentSpecificMemory;
  if (!measure) throw new Error('measureUserAgentSpecificMemory is not available');
  return (await measure.call(performance)).bytes;
}

test('memory stays flat over many calls (no leak per call)', async () => {
  const seg = await createSegmenter({ model: '/test/fixtures/models/tiny-legacy/', backends: ['wasm'] });
  const bytes = new Uint8Array(await (await fetch(`/test/fixtures/reference/${IMAGE}`)).arrayBuffer());
  const run = async (n: number) => {
    for (let i = 0; i < n; i++) await seg.segmentRaw(bytes.slice());
  };
  await run(20);
  const before = await memory();
  await run(300);
  const after = await memory();
  console.log(`memory after 20 calls ${(before / 1e6).toFixed(1)} MB, after 320 calls ${(after / 1e6).toFixed(1)} MB`);
  // A leak of one 60 000-pixel mask per call would add 18 MB; a decoded image, 72 MB.
  expect(after - before).toBeLessThan(8e6);
  await seg.dispose();
});

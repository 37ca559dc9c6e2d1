import fc from 'fast-check';
import { expect, test } from 'vitest';
import { commands } from 'vitest/browser';
import { createSegmenter, InvalidInputError } from '../../src/index.js';
import { SAMPLE_FILES, type Samples } from '../fixtures/bad-images.js';
import { corruptImage, FUZZ_SEED } from '../helpers/fuzz.js';
import manifest from '../fixtures/reference/manifest.json';

const IMAGE = manifest.endToEnd.find((c) => c.file.endsWith('300x200.png'))!.file;

// Page and worker memory together, as the browser accounts it (needs cross-origin isolation).
async function memory(): Promise<number> {
  const measure = (performance as Performance & { measureUserAgentSpecificMemory?: () => Promise<{ bytes: number }> })
    .measureUserAgentSpecificMemory;
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

test("200 corrupt images through one segmenter: each a coded error or a payload, then a good image gives Node's payload, and memory stays flat", async () => {
  const seg = await createSegmenter({ model: '/test/fixtures/models/tiny-legacy/', backends: ['wasm'], cache: false });
  const fetched = await Promise.all(
    Object.entries(SAMPLE_FILES).map(
      async ([k, file]) => [k, new Uint8Array(await (await fetch(`/test/fixtures/images/${file}`)).arrayBuffer())] as const,
    ),
  );
  const samples = Object.fromEntries(fetched) as Samples;
  // Big seeds too (a 1024×768 photo-sized JPEG and PNG drawn here), so that anything kept per call shows.
  const canvas = new OffscreenCanvas(1024, 768);
  const ctx = canvas.getContext('2d')!;
  const gradient = ctx.createLinearGradient(0, 0, 1024, 768);
  gradient.addColorStop(0, '#e6194b');
  gradient.addColorStop(1, '#4363d8');
  ctx.fillStyle = gradient;
  ctx.fillRect(0, 0, 1024, 768);
  const big = async (type: string) => new Uint8Array(await (await canvas.convertToBlob({ type, quality: 0.9 })).arrayBuffer());
  const seeds = { ...samples, jpeg: await big('image/jpeg'), png: await big('image/png') };
  const corrupt = fc.sample(corruptImage(seeds), { seed: FUZZ_SEED, numRuns: 220 });
  const codes = ['IMAGE_EMPTY', 'IMAGE_DECODE_FAILED', 'IMAGE_FORMAT_UNSUPPORTED', 'IMAGE_TOO_LARGE'];
  const outcomes = new Map<string, number>();
  const run = async (images: Uint8Array[]) => {
    for (const bytes of images) {
      const outcome = await seg.segment(bytes.slice()).then(
        (payload) => (payload.image.width > 0 && payload.image.height > 0 ? 'payload' : 'an empty payload'),
        (error: unknown) => (error instanceof InvalidInputError && codes.includes(error.code) ? error.code : `uncoded: ${String(error)}`),
      );
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
  };
  await run(corrupt.slice(0, 20));
  const before = await memory();
  await run(corrupt.slice(20));
  const after = await memory();
  console.log(
    `corrupt images: ${JSON.stringify(Object.fromEntries(outcomes))}; memory ${(before / 1e6).toFixed(1)} → ${(after / 1e6).toFixed(1)} MB`,
  );
  expect([...outcomes.keys()].filter((k) => k !== 'payload' && !codes.includes(k))).toEqual([]);
  expect(seg.backend).toBe('wasm');
  const node = await commands.nodeSegment('test/fixtures/models/tiny-legacy', 'test/fixtures/images/sample.png', 50);
  expect(await seg.segment(samples.png.slice())).toEqual(node);
  // 200 calls on images up to 1024×768: keeping one decoded image per call would add over 600 MB.
  expect(after - before).toBeLessThan(8e6);
  await seg.dispose();
});

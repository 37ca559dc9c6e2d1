// segmentRaw(source, { alpha: true }) in the browser's worker gives the soft alpha that Node's native
// backend gives: the same refinement of the same probabilities (a cut trailing Resize taken as its
// upsampling), up to the rounding of a probability byte.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { commands } from 'vitest/browser';
import { createSegmenter, type Segmenter } from '../../src/index.js';
import { bytesOf } from './same-payload.js';

const cases = [
  ['tiny-binary', 'data/shapes-300x200.png'],
  ['tiny-legacy', 'data/shapes-97x61.png'],
  ['tiny-upsample', 'data/shapes-300x200.png'],
] as const;

describe('the soft alpha in the browser (WASM) is Node native’s', () => {
  const segmenters = new Map<string, Segmenter>();
  beforeAll(async () => {
    for (const [name] of cases)
      segmenters.set(name, await createSegmenter({ model: `/test/fixtures/models/${name}/`, backends: ['wasm'], numThreads: 1 }));
  });
  afterAll(async () => {
    for (const seg of segmenters.values()) await seg.dispose();
  });

  test.each(cases)('%s on %s', async (name, file) => {
    const seg = segmenters.get(name)!;
    const plain = await seg.segmentRaw(await bytesOf(file));
    const raw = await seg.segmentRaw(await bytesOf(file), { alpha: true });
    const node = Uint8Array.from(atob(await commands.nodeAlpha(`test/fixtures/models/${name}`, `test/fixtures/reference/${file}`)), (c) =>
      c.charCodeAt(0),
    );
    expect(plain.alpha).toBeUndefined();
    expect(raw.classIds).toEqual(plain.classIds);
    expect(raw.alpha.length).toBe(raw.width * raw.height);
    let off = 0;
    let worst = 0;
    for (let p = 0; p < node.length; p++) {
      const d = Math.abs(raw.alpha[p]! - node[p]!);
      off += d;
      worst = Math.max(worst, d);
    }
    expect(worst).toBeLessThanOrEqual(2);
    expect(off / node.length).toBeLessThan(0.05);
    // Not a constant (these tiny models are never sure: their alpha stays between the ends).
    expect(new Set(raw.alpha).size).toBeGreaterThan(10);
  });
});

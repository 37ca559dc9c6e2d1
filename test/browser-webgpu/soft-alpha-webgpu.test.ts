// The soft alpha on the WebGPU backend: the logits are read back from the GPU before the shader's class
// ids free them, and refined as on WASM, so that both give the same alpha up to float rounding.
import { expect, test } from 'vitest';
import { createSegmenter } from '../../src/index.js';

const bytesOf = async (file: string) => new Uint8Array(await (await fetch(`/test/fixtures/reference/${file}`)).arrayBuffer());

test.each(['tiny-binary', 'tiny-legacy'])('%s: segmentRaw(…, { alpha: true }) on webgpu is wasm’s', async (model) => {
  const [gpu, cpu] = await Promise.all(
    (['webgpu', 'wasm'] as const).map((backend) => createSegmenter({ model: `/test/fixtures/models/${model}/`, backends: [backend] })),
  );
  try {
    expect(gpu!.backend).toBe('webgpu');
    // The small image is preprocessed on the GPU too (a prepared input's run); the large one on the CPU.
    for (const [file, pixels] of [
      ['data/shapes-64x48.png', 64 * 48],
      ['data/shapes-300x200.png', 300 * 200],
    ] as const) {
      const image = await bytesOf(file);
      const a = await gpu!.segmentRaw(image.slice(), { alpha: true });
      const b = await cpu!.segmentRaw(image.slice(), { alpha: true });
      expect(a.classIds).toEqual(b.classIds);
      expect(a.alpha.length).toBe(pixels);
      let worst = 0;
      for (let p = 0; p < a.alpha.length; p++) worst = Math.max(worst, Math.abs(a.alpha[p]! - b.alpha[p]!));
      expect(worst, file).toBeLessThanOrEqual(2);
      expect(new Set(a.alpha).size).toBeGreaterThan(10);
    }
  } finally {
    await Promise.all([gpu!.dispose(), cpu!.dispose()]);
  }
});

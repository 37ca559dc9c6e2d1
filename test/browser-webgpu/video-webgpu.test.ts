// Live video on WebGPU (SwiftShader's adapter: a tiny model only): the model fails mid-call, and the effect
// moves to WASM on the same output track, the frames in between drawn with the last good mask.
import { expect, test } from 'vitest';
import { createVideoEffect, type VideoMask } from '../../src/index.js';
import { injectFault } from '../../src/runtime/segmenter-internals.js';
import { canvasTrack, until } from '../browser/video-helpers.js';
import { stringMatching } from '../helpers/matchers.js';

test('a WebGPU failure mid-call moves the effect to WASM; the output track keeps flowing, and stats say so', async () => {
  const fx = await createVideoEffect({ model: '/test/fixtures/models/tiny-legacy/', effect: 'color', backends: ['webgpu', 'wasm'] });
  const live = canvasTrack();
  const masks: VideoMask[] = [];
  fx.onMask = (mask) => masks.push(mask);
  try {
    expect(fx.stats.backend).toBe('webgpu');
    const output = fx.process(live.track);
    await until(() => fx.stats.frames >= 2, 'two output frames on webgpu');
    const gpuMask = masks.at(-1)!;
    await injectFault(fx.segmenter, 'run');
    await until(
      () => fx.stats.backend === 'wasm',
      () => `the move to wasm (stats: ${JSON.stringify(fx.stats)})`,
    );
    const frames = fx.stats.frames;
    await until(
      () => fx.stats.frames >= frames + 3,
      () => `frames on wasm (stats: ${JSON.stringify(fx.stats)})`,
    );
    expect(output.readyState).toBe('live');
    expect(fx.stats).toMatchObject({
      backend: 'wasm',
      restarts: 0,
      fallbacks: [{ backend: 'webgpu', code: 'BACKEND_FAILED', message: stringMatching(/webgpu backend failed/) }],
    });
    expect(fx.stats.reused).toBeGreaterThanOrEqual(1);
    // The masks go on, with newer timestamps: WebGPU's at the network input's size (its logits stay on the
    // GPU), WASM's at the network output's, over the same picture.
    const cpuMask = masks.at(-1)!;
    expect(cpuMask.width / cpuMask.height).toBeCloseTo(gpuMask.width / gpuMask.height);
    expect(cpuMask.classIds.length).toBe(cpuMask.width * cpuMask.height);
    expect(cpuMask.timestamp).toBeGreaterThan(gpuMask.timestamp);
    live.stop();
    await until(() => output.readyState === 'ended', 'the output to end with the input');
  } finally {
    live.stop();
    await fx.close();
  }
});

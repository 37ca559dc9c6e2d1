// A shorter long call: 360 frames of 640×480 through createVideoEffect (Chromium's track generator in,
// its processor out), after the first that comes out; the page's and the workers' memory stays flat
// after the first 60.
import { expect, test } from 'vitest';
import { createVideoEffect } from '../../src/index.js';

const media = globalThis as unknown as {
  MediaStreamTrackGenerator: new (init: { kind: 'video' }) => MediaStreamTrack & { writable: WritableStream<VideoFrame> };
  MediaStreamTrackProcessor: new (init: { track: MediaStreamTrack }) => { readable: ReadableStream<VideoFrame> };
};

async function memory(): Promise<number> {
  const measure = (performance as Performance & { measureUserAgentSpecificMemory?: () => Promise<{ bytes: number }> })
    .measureUserAgentSpecificMemory;
  if (!measure) throw new Error('measureUserAgentSpecificMemory is not available');
  return (await measure.call(performance)).bytes;
}

test('memory stays flat over 300 frames of blur (no frame, mask or texture kept per frame)', async () => {
  const fx = await createVideoEffect({ effect: 'blur', backends: ['wasm'] });
  const generator = new media.MediaStreamTrackGenerator({ kind: 'video' });
  const writer = generator.writable.getWriter();
  const reader = new media.MediaStreamTrackProcessor({ track: fx.process(generator) }).readable.getReader();
  const picture = new OffscreenCanvas(640, 480);
  const ctx = picture.getContext('2d')!;
  let timestamp = 0;
  const write = async (i: number) => {
    ctx.fillStyle = `hsl(${(timestamp / 1e4) % 360}, 50%, 50%)`;
    ctx.fillRect(0, 0, 640, 480);
    ctx.fillStyle = '#222';
    ctx.fillRect(200 + (i % 40), 100, 200, 380);
    timestamp += 33_333;
    await writer.write(new VideoFrame(picture, { timestamp }));
  };
  let next = reader.read();
  let shown = 0;
  /** The output's timestamp (the input's it came from). */
  const take = (frame: VideoFrame | undefined) => {
    const { timestamp } = frame!;
    frame!.close();
    shown++;
    next = reader.read();
    return timestamp;
  };
  // A track delivers only to the readers it has: the frames written before the loop's worker reads the
  // input are not seen (the first may be, when the machine is busy). Frames go until one comes out.
  for (let i = 0; shown === 0; i++) {
    await write(i);
    const first = await Promise.race([next, new Promise<null>((resolve) => setTimeout(() => resolve(null), 500))]);
    if (first) take(first.value);
  }
  // Then one frame in, and out until it (a frame of the first ones may still be on its way).
  const run = async (n: number) => {
    for (let i = 0; i < n; i++) {
      await write(i);
      while (take((await next).value) !== timestamp);
    }
  };
  await run(60);
  const before = await memory();
  await run(300);
  const after = await memory();
  console.log(`video memory after 60 frames ${(before / 1e6).toFixed(1)} MB, after 360 ${(after / 1e6).toFixed(1)} MB`);
  // One 640×480 frame kept per frame would add 370 MB; one network-size mask, 20 MB.
  expect(after - before).toBeLessThan(Math.max(8e6, 0.05 * before));
  expect(fx.stats).toMatchObject({ frames: shown, dropped: 0, openFrames: 0 });
  expect(shown).toBeGreaterThanOrEqual(361);
  await writer.close();
  await fx.close();
});

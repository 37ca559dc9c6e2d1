// The decode gate: decodes admitted by pixel count against a budget, in arrival order, a bounded number
// waiting, the rest refused at once with 503 ServerBusy and a Retry-After.
import { expect, test } from 'vitest';
import { DecodeGate, pixelWeight } from '../../../server/decode-gate.js';
import type { HttpError } from '../../../server/http.js';
import { animatedWebpFrames, gifFrames } from '../../helpers/hostile-images.js';

/** A task that runs until `finish()` is called, recording when it started. */
function held(started: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { task: () => (started.push(name), done.then(() => name)), finish: () => finish() };
}

test('small decodes run side by side within the budget; a large one waits its turn, and those behind it wait too', async () => {
  const gate = new DecodeGate({ maxDecodePixels: 100, maxDecodesWaiting: 4, retryAfterS: 7 });
  const started: string[] = [];
  const a = held(started, 'a');
  const b = held(started, 'b');
  const big = held(started, 'big');
  const c = held(started, 'c');
  const runs = [gate.run(40, a.task), gate.run(40, b.task), gate.run(90, big.task), gate.run(20, c.task)];
  await Promise.resolve();
  expect(started).toEqual(['a', 'b']);
  expect(gate.load).toEqual({ running: 2, waiting: 2, pixels: 80 });
  a.finish();
  await runs[0];
  // 40 + 90 is over the budget: big still waits, and c (which would fit beside b) does not jump it.
  expect(started).toEqual(['a', 'b']);
  b.finish();
  await runs[1];
  await Promise.resolve();
  // 90 + 20 is over the budget too: c waits for big.
  expect(started).toEqual(['a', 'b', 'big']);
  big.finish();
  await runs[2];
  await Promise.resolve();
  expect(started).toEqual(['a', 'b', 'big', 'c']);
  c.finish();
  expect(await Promise.all(runs)).toEqual(['a', 'b', 'big', 'c']);
  expect(gate.load).toEqual({ running: 0, waiting: 0, pixels: 0 });
});

test('an image over the whole budget runs alone; past the waiting limit a request is refused at once', async () => {
  const gate = new DecodeGate({ maxDecodePixels: 100, maxDecodesWaiting: 1, retryAfterS: 7 });
  const started: string[] = [];
  const huge = held(started, 'huge');
  const next = held(started, 'next');
  const first = gate.run(10_000, huge.task);
  const second = gate.run(1, next.task);
  const refused = await gate.run(1, () => Promise.resolve('ran')).catch((e: unknown) => e as HttpError);
  expect(refused).toMatchObject({ status: 503, type: 'ServerBusy', retryAfterS: 7 });
  expect(started).toEqual(['huge']);
  huge.finish();
  next.finish();
  expect(await Promise.all([first, second])).toEqual(['huge', 'next']);
  // A task that fails gives its pixels back.
  await expect(gate.run(50, () => Promise.reject(new Error('decode failed')))).rejects.toThrow('decode failed');
  expect(gate.load).toEqual({ running: 0, waiting: 0, pixels: 0 });
});

test("an image's weight is its header's pixel count; bytes that are no image weigh one pixel", () => {
  // A PNG of 16383×3050: its signature, IHDR and IEND (no pixels: only the header is read).
  const png = Buffer.alloc(45);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(png, 0);
  png.writeUInt32BE(13, 8);
  png.write('IHDR', 12, 'latin1');
  png.writeUInt32BE(16383, 16);
  png.writeUInt32BE(3050, 20);
  png.write('IEND', 37, 'latin1');
  expect(pixelWeight(png, 50_000_000)).toBe(16383 * 3050);
  expect(pixelWeight(new TextEncoder().encode('<html>'), 50_000_000)).toBe(1);
});

test('an animated image weighs its largest frame, not the screen its header gives', () => {
  // The screen says 1×1; the frame is 7000×7000, which libvips decodes whole.
  expect(pixelWeight(gifFrames(1, 1, [{ width: 7000, height: 7000 }]), 50_000_000)).toBe(7000 * 7000);
  expect(
    pixelWeight(
      gifFrames(1, 1, [
        { width: 1, height: 1 },
        { left: 3000, width: 1000, height: 2000 },
      ]),
      50_000_000,
    ),
  ).toBe(4000 * 2000);
  expect(pixelWeight(animatedWebpFrames(1, 1, [{ width: 5000, height: 5000 }]), 50_000_000)).toBe(5000 * 5000);
});

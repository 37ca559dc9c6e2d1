import { describe, expect, test } from 'vitest';
import { MaskPace } from '../../../src/video/mask-pace.js';

/** `frames` frames `every` ms apart, each followed by a model round trip of `trip` ms; what choose() says after each. */
function feed(pace: MaskPace, clock: { now: number }, frames: number, every: number, trip: number): boolean[] {
  const chosen: boolean[] = [];
  for (let n = 0; n < frames; n++) {
    clock.now += every;
    pace.frame(clock.now);
    chosen.push(pace.choose());
    pace.trip(trip);
  }
  return chosen;
}

describe("waitForMask 'auto' (MaskPace)", () => {
  test('frames wait while the model keeps pace with them (a round trip up to 1.1 frame intervals)', () => {
    const pace = new MaskPace();
    const clock = { now: 0 };
    expect(feed(pace, clock, 200, 33.3, 36)).toEqual(Array(200).fill(true));
  });

  test('a slower model: frames stop waiting after 10 frames, and the first two round trips (warm-up) are not counted', () => {
    const pace = new MaskPace();
    const clock = { now: 0 };
    // Two slow warm-up runs, then a model that keeps pace: frames go on waiting.
    clock.now += 33;
    pace.frame(clock.now);
    pace.trip(400);
    pace.trip(400);
    expect(feed(pace, clock, 40, 33.3, 25).every(Boolean)).toBe(true);
    // Now 25 ms runs and frames 16.7 ms apart (a 60 frames/s camera).
    const fast = feed(new MaskPace(), { now: 0 }, 40, 16.7, 25);
    // The 10th frame (the first with 10 counted; the 3rd round trip is the first counted).
    expect(fast.indexOf(false)).toBe(9);
    expect(fast.slice(9).every((w) => !w)).toBe(true);
  });

  test('they wait again once the round trip is under 0.9 of the interval, not before (no turns between the two)', () => {
    const pace = new MaskPace();
    const clock = { now: 0 };
    feed(pace, clock, 40, 16.7, 25);
    expect(pace.choose()).toBe(false);
    // Frames 26 ms apart: 25 ms is over 0.9 × 26, so they still do not wait.
    expect(feed(pace, clock, 60, 26, 25).every((w) => !w)).toBe(true);
    // Frames 33.3 ms apart: under 0.9 × 33.3 once the averages follow, and then for good.
    const slower = feed(pace, clock, 60, 33.3, 25);
    const back = slower.indexOf(true);
    expect(back).toBeGreaterThan(0);
    expect(back).toBeLessThan(30);
    expect(slower.slice(back).every(Boolean)).toBe(true);
  });

  test('changes are 10 frames apart at least, whatever the samples say', () => {
    const pace = new MaskPace();
    const clock = { now: 0 };
    // Just too slow for frames 20 ms apart: frames stop waiting at the 10th.
    const slow = feed(pace, clock, 10, 20, 25);
    expect(slow.indexOf(false)).toBe(9);
    // Then an instant model: the average is under 0.9 × 20 ms after 3 round trips, but frames wait again
    // only at the 10th frame after the last change.
    const instant = feed(pace, clock, 20, 20, 0.001);
    expect(instant.indexOf(true)).toBe(9);
  });

  test("the camera's frame rate, where the track gives it, is the interval: not the time between frames as a busy loop reads them", () => {
    // A 60 frames/s camera read every 37 ms by a loop that composites each frame, a 30 ms round trip.
    const camera = feed(new MaskPace(60), { now: 0 }, 20, 37, 30);
    expect(camera.indexOf(false)).toBe(9);
    // Without the frame rate, the frames as they come set the pace, and frames go on waiting.
    expect(feed(new MaskPace(), { now: 0 }, 20, 37, 30).every(Boolean)).toBe(true);
  });

  test("the loop's own work on a frame counts too: a fast model with a loop slower than the camera", () => {
    const pace = new MaskPace(30);
    const clock = { now: 0 };
    const chosen: boolean[] = [];
    for (let n = 0; n < 20; n++) {
      clock.now += 33.3;
      pace.frame(clock.now);
      chosen.push(pace.choose());
      pace.trip(10);
      // 12 ms for the input and guide, 25 ms to composite: 37 ms a frame, over 1.1 × 33.3.
      pace.input(12);
      pace.composite(25);
    }
    expect(chosen.indexOf(false)).toBe(9);
  });
});

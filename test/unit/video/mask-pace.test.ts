import { describe, expect, test } from 'vitest';
import { MaskPace } from '../../../src/video/mask-pace.js';

/**
 * `frames` frames `every` ms apart, each followed by a model round trip of `trip` ms; what choose() says
 * after each. `idle`: how long the loop waited for each frame with nothing to do (none: it read each late).
 */
function feed(pace: MaskPace, clock: { now: number }, frames: number, every: number, trip: number, idle = 0): boolean[] {
  const chosen: boolean[] = [];
  for (let n = 0; n < frames; n++) {
    clock.now += every;
    pace.frame(clock.now, undefined, idle);
    chosen.push(pace.choose());
    pace.trip(trip);
  }
  return chosen;
}

/**
 * Frames 1 to `count` of a 60 frames/s camera: what choose() says at each. `before(n, chosen)` runs once
 * frame n came, `after(n)` once choose() has said.
 */
function at60(pace: MaskPace, count: number, after: (n: number) => void, before?: (n: number, chosen: boolean[]) => void): boolean[] {
  const chosen: boolean[] = [];
  for (let n = 1; n <= count; n++) {
    pace.frame(n * 16.7);
    before?.(n, chosen);
    chosen.push(pace.choose());
    after(n);
  }
  return chosen;
}

describe("waitForMask 'auto' (MaskPace)", () => {
  test('frames wait while the model keeps pace with them (a round trip up to one frame interval), not once it is over', () => {
    expect(feed(new MaskPace(), { now: 0 }, 200, 33.3, 33)).toEqual(Array(200).fill(true));
    expect(feed(new MaskPace(), { now: 0 }, 200, 33.3, 34).indexOf(false)).toBe(9);
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

  test('they wait again once the round trip is under 0.8 of the interval, not before (no turns between the two)', () => {
    const pace = new MaskPace();
    const clock = { now: 0 };
    feed(pace, clock, 40, 16.7, 25);
    expect(pace.choose()).toBe(false);
    // Frames 26 ms apart, then 29.4: 25 ms is over 0.8 × 26 and 0.8 × 29.4, so they still do not wait.
    expect(feed(pace, clock, 60, 26, 25).every((w) => !w)).toBe(true);
    expect(feed(pace, clock, 60, 29.4, 25).every((w) => !w)).toBe(true);
    // Frames 33.3 ms apart: under 0.8 × 33.3 once the averages follow, and then for good.
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
    // Then an instant model: the average is under 0.8 × 20 ms after 3 round trips, but frames wait again
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

  test('a camera slower than its frame rate says (low light): frames stop waiting, find the camera slower, and wait again for good', () => {
    // The track says 60 frames/s; the camera gives a frame every 40 ms, and the loop waits 30 ms for each.
    // Judged on 60 frames/s a 30 ms round trip is too slow: frames stop waiting at the 10th. Not waiting,
    // the time between frames is measured (8 of them), and 30 ms keeps pace with 40: they wait again at
    // the 10th frame after the change, and go on waiting.
    const pace = new MaskPace(60);
    const chosen = feed(pace, { now: 0 }, 60, 40, 30, 30);
    expect(chosen.indexOf(false)).toBe(9);
    expect(chosen.indexOf(true, 9)).toBe(19);
    expect(chosen.slice(19).every(Boolean)).toBe(true);
    expect(pace.interval).toBeCloseTo(40, 5);
    // The same frames read late by a busy loop say nothing of the camera: its frame rate stays the interval.
    const late = new MaskPace(60);
    const busy = feed(late, { now: 0 }, 60, 40, 30);
    expect(busy.indexOf(false)).toBe(9);
    expect(busy.slice(9).every((w) => !w)).toBe(true);
    expect(late.interval).toBeCloseTo(1000 / 60, 5);
  });

  test('the interval is measured only while frames do not wait, from the 8th sample, and is never shorter than the frame rate says', () => {
    // Waiting frames 40 ms apart (frames held for the model may hold the camera back): not measured.
    const held = new MaskPace(60);
    for (let n = 1; n <= 30; n++) held.frame(40 * n, true, 30);
    expect(held.interval).toBeCloseTo(1000 / 60, 5);
    // Not waiting (waitForMask: false): 7 samples are not enough, the 8th is.
    const free = new MaskPace(60);
    for (let n = 1; n <= 8; n++) free.frame(50 * n, false, 40);
    expect(free.interval).toBeCloseTo(1000 / 60, 5);
    free.frame(450, false, 40);
    expect(free.interval).toBeCloseTo(50, 5);
    // Frames 20 ms apart from a track that says 30 frames/s: the frame rate's 33.3 ms stands.
    const fast = new MaskPace(30);
    for (let n = 1; n <= 20; n++) fast.frame(20 * n, false, 15);
    expect(fast.interval).toBeCloseTo(1000 / 30, 5);
    // No frame rate: the time between frames as they come, until the camera's is measured.
    const unknown = new MaskPace();
    for (let n = 1; n <= 5; n++) unknown.frame(80 * n, true);
    expect(unknown.interval).toBeCloseTo(80, 5);
    for (let n = 1; n <= 9; n++) unknown.frame(400 + 50 * n, false, 40);
    expect(unknown.interval).toBeCloseTo(50, 5);
  });

  test("frames sent at the pipeline's pace by a page that skipped the camera's others between them: the camera's frames count, not the ones sent", () => {
    // No frame rate from the track; a 30 frames/s camera, of which the page sends one in five (a model run
    // of 160 ms, two frames in flight). The frames sent are 167 ms apart: judged on them, frames would
    // go on waiting; counted with the four skipped between them, the camera gives one every 33 ms.
    const counted = new MaskPace();
    const sent = new MaskPace();
    const a: boolean[] = [];
    const b: boolean[] = [];
    for (let n = 1; n <= 20; n++) {
      counted.frame(n * 166.7, undefined, 0, 5);
      sent.frame(n * 166.7);
      a.push(counted.choose());
      b.push(sent.choose());
      counted.trip(160);
      sent.trip(160);
    }
    expect(counted.interval).toBeCloseTo(33.3, 0);
    expect(a.indexOf(false)).toBe(9);
    expect(b.every(Boolean)).toBe(true);
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

  test("the loop's own work counts making each run's masks: input, masks and compositing over the interval stop frames waiting", () => {
    const run = (masks: number) => {
      const pace = new MaskPace(60);
      return at60(pace, 40, () => {
        pace.trip(10);
        // 4 ms for the input, 6 ms to composite and write; the masks as given.
        pace.input(4);
        pace.masks(masks);
        pace.composite(6);
      });
    };
    expect(run(8).indexOf(false)).toBe(9);
    expect(run(5).every(Boolean)).toBe(true);
  });

  test("while frames do not wait, round trips are long by the loop's work as results came: the model's own work, and the least time besides it, decide", () => {
    // A 60 frames/s camera; the model works 11 ms a run, and its results wait 1–9 ms besides for a busy
    // loop (15.3 ms on average, not under 0.8 × 16.7).
    const run = (told: boolean) => {
      const pace = new MaskPace(60);
      // Too slow at first (30 ms): frames stop waiting at the 10th.
      return at60(pace, 80, (n) => (n <= 10 ? pace.trip(30) : pace.trip(11 + [1, 6, 9][n % 3]!, told ? 11 : undefined)));
    };
    const told = run(true);
    expect(told.indexOf(false)).toBe(9);
    // Waiting again, 11 + 1 ms a run, 10 frames after the change at the earliest.
    const back = told.indexOf(true, 9);
    expect(back).toBeGreaterThanOrEqual(19);
    expect(told.slice(back).every(Boolean)).toBe(true);
    // Where the model does not tell its own work, the round trips decide: frames never wait again.
    expect(
      run(false)
        .slice(9)
        .every((w) => !w),
    ).toBe(true);
  });

  test('frames that stopped waiting because a quarter were carried wait again only after twice as many frames each time', () => {
    // A model that the pace says keeps up (11 ms, 1 ms besides), and a camera whose frames are carried in
    // spells: one in two while `spell` says so.
    const pace = new MaskPace(60);
    const spell = (n: number) => (n >= 20 && n < 60) || (n >= 100 && n < 140);
    const chosen = at60(
      pace,
      200,
      () => pace.trip(12, 11),
      (n, chosen) => {
        if (spell(n) && n % 2 === 0 && chosen.at(-1) !== false) pace.carried();
      },
    );
    const runs = chosen.map(Number).join('');
    // Waiting, then not for 20 frames (10 doubled), waiting (carried again), then not for 40.
    const match = /^(1+)(0+)(1+)(0+)(1+)$/.exec(runs);
    expect(match, runs).not.toBeNull();
    expect([match![2]!.length, match![4]!.length]).toEqual([20, 40]);
  });

  test('frames stop waiting once a quarter of them are carried, where the round trip alone says the model keeps pace', () => {
    const run = (carriedEvery: number) => {
      const pace = new MaskPace(60);
      const chosen: boolean[] = [];
      // A model that keeps pace on average (16 ms against frames 16.7 ms apart) and the warm-up past.
      pace.trip(400);
      pace.trip(400);
      for (let n = 1; n <= 200; n++) {
        pace.frame(n * 16.7);
        if (n % carriedEvery === 0) pace.carried();
        chosen.push(pace.choose());
        pace.trip(16);
      }
      return chosen;
    };
    // One frame in three carried: frames stop waiting, once the average over about 32 frames is past a quarter.
    const third = run(3);
    const stop = third.indexOf(false);
    expect(stop).toBeGreaterThan(9);
    expect(stop).toBeLessThan(60);
    // Not waiting, the round trip is not under 0.8 of the interval: they do not wait again.
    expect(third.slice(stop).every((w) => !w)).toBe(true);
    // One in ten carried (a camera's jitter): frames go on waiting for their own mask.
    expect(run(10).every(Boolean)).toBe(true);
  });

  test("frames carried during the model's warm-up (its first two round trips) are not counted", () => {
    const pace = new MaskPace(60);
    // Ten frames carried while the first runs are slow (a fresh session), then none.
    for (let n = 1; n <= 10; n++) {
      pace.frame(n * 16.7);
      pace.carried();
    }
    pace.trip(300);
    pace.trip(300);
    const chosen: boolean[] = [];
    for (let n = 11; n <= 60; n++) {
      pace.frame(n * 16.7);
      chosen.push(pace.choose());
      pace.trip(14);
    }
    expect(chosen.every(Boolean)).toBe(true);
  });
});

// The live loop's rules, in Node: fake frames, a fake model and writer, and a fake clock that runs events
// (a frame from the camera, a model run back) in time order.
import { describe, expect, test } from 'vitest';
import { FRAME_MOVES, FrameScheduler, moveFrame, type FrameState, type ModelRun, type Shown } from '../../../src/video/frame-scheduler.js';
import { MaskPace } from '../../../src/video/mask-pace.js';

interface Frame {
  id: number;
  width: number;
}

/** Masks made from frame `from`, for frames `width` wide. */
interface Masks {
  from: number;
  width: number;
}

interface Written {
  id: number;
  /** The frame the masks it was shown on were made from. */
  masks: number;
  carried: boolean;
  failure?: string;
  at: number;
}

/** A clock whose time moves only from event to event. */
class FakeClock {
  now = 0;
  readonly #events: { at: number; seq: number; run: () => void }[] = [];
  #seq = 0;

  at(at: number, run: () => void): void {
    this.#events.push({ at, seq: this.#seq++, run });
    this.#events.sort((a, b) => a.at - b.at || a.seq - b.seq);
  }

  /** Runs every event in order (each followed by the promise work it starts), until none is left. */
  async run(): Promise<void> {
    await settle();
    for (let next = this.#events.shift(); next; next = this.#events.shift()) {
      this.now = Math.max(this.now, next.at);
      next.run();
      await settle();
    }
  }
}

/** Lets every promise callback that can run, run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

interface RigOptions {
  waitForMask?: boolean | 'auto';
  pace?: MaskPace;
  countGaps?: boolean;
  /** How long each model run takes (ms); by frame id. Default 30. */
  modelMs?: (id: number) => number;
  /** The model's own work on each run (ms), as a model's worker reports it (`modelWork`); by frame id. */
  modelWork?: (id: number) => number;
  /** Which frames' runs fail. */
  fails?: (id: number) => boolean;
  /** Which frames' inputs fail to be drawn. */
  prepareFails?: (id: number) => boolean;
  /** How long writing a frame takes (ms). Default 0. */
  writeMs?: number;
  /** How long making a run's masks takes (ms; the loop's thread is busy meanwhile). Default 0. */
  finishMs?: number;
  /** Whether the model runs are answered by the clock (else by `answer`). Default true. */
  timed?: boolean;
  /** Which frames the writer writes (as a stopped loop's writer writes none). Default all. */
  writes?: (id: number) => boolean;
}

/** A scheduler over fake frames, with everything it does recorded. */
function rig(options: RigOptions = {}) {
  const clock = new FakeClock();
  const { modelMs = () => 30, fails = () => false, writeMs = 0, finishMs = 0, timed = true } = options;
  const log = {
    written: [] as Written[],
    /** Each frame's end, in the order frames were done with: `shown`, or `dropped:` and why. */
    done: [] as { id: number; end: string; error?: string }[],
    /** Frames at the model, in the order it took them, and how many runs were in flight at most. */
    modelled: [] as number[],
    /** When the model took each. */
    modelledAt: [] as number[],
    inFlight: 0,
    mostInFlight: 0,
    kept: [] as number[],
    /** Each run's masks as they were made, and the frame at the model then (null: none). */
    finished: [] as { from: number; atModel: number | null }[],
    /** Frames whose network input was drawn, in order. */
    prepared: [] as number[],
    preparedAt: new Map<number, number>(),
    failed: [] as string[],
    /** Writes begun and not finished, and the most at once. */
    writing: 0,
    mostWriting: 0,
  };
  const answers: { id: number; answer: () => void }[] = [];
  /** A run's result: its masks made as the scheduler asks (`finishMs` of the loop's thread), and the model's own work where it tells it. */
  const madeOf = (masks: Masks): ModelRun<Masks> => ({
    ...(options.modelWork ? { work: options.modelWork(masks.from) } : {}),
    masks: () => {
      log.finished.push({ from: masks.from, atModel: log.inFlight ? log.modelled.at(-1)! : null });
      clock.now += finishMs;
      return masks;
    },
  });
  /** The frames the camera gave the loop (where the camera ran). */
  const offeredIds: number[] = [];
  const scheduler = new FrameScheduler<Frame, Frame, Masks>(
    {
      now: () => clock.now,
      keep: (frame) => log.kept.push(frame.id),
      prepare: (frame) => {
        if (options.prepareFails?.(frame.id)) throw new Error(`input ${frame.id} failed`);
        log.prepared.push(frame.id);
        log.preparedAt.set(frame.id, clock.now);
        return { ...frame };
      },
      model: (input) => {
        log.modelled.push(input.id);
        log.modelledAt.push(clock.now);
        log.mostInFlight = Math.max(log.mostInFlight, ++log.inFlight);
        return new Promise<ModelRun<Masks>>((resolve, reject) => {
          const answer = () => {
            log.inFlight--;
            if (fails(input.id)) reject(new Error(`run ${input.id} failed`));
            else resolve(madeOf({ from: input.id, width: input.width }));
          };
          if (timed) clock.at(clock.now + modelMs(input.id), answer);
          else answers.push({ id: input.id, answer });
        });
      },
      fits: (masks, frame) => masks.width === frame.width,
      write: (frame, shown: Shown<Masks>) => {
        const written: Written = {
          id: frame.id,
          masks: shown.masks.from,
          carried: shown.carried,
          at: clock.now,
          ...(shown.failure ? { failure: (shown.failure as Error).message } : {}),
        };
        if (options.writes && !options.writes(frame.id)) return Promise.resolve(false);
        if (!writeMs) {
          log.written.push(written);
          return Promise.resolve(true);
        }
        log.mostWriting = Math.max(log.mostWriting, ++log.writing);
        return new Promise((resolve) =>
          clock.at(clock.now + writeMs, () => {
            log.writing--;
            log.written.push({ ...written, at: clock.now });
            resolve(true);
          }),
        );
      },
      done: (frame, end) =>
        log.done.push({
          id: frame.id,
          end: end.is === 'shown' ? 'shown' : `dropped:${end.why}`,
          ...(end.is === 'dropped' && end.why === 'failed' ? { error: (end.error as Error).message } : {}),
        }),
      failed: (error) => log.failed.push((error as Error).message),
    },
    { waitForMask: options.waitForMask ?? true, pace: options.pace ?? new MaskPace(), countGaps: options.countGaps ?? false },
  );

  /**
   * A camera: frame n (1, 2, …) comes at `times[n - 1]`, stamped with that time (µs), `width` wide. As a
   * track processor does, the loop reads a frame once the last offer is taken; a frame that comes before
   * waits for that, and a newer one discards it (uncounted: the scheduler counts it from the timestamps).
   */
  function camera(
    times: number[],
    width: number | ((id: number) => number) = 640,
  ): { discarded: number[]; waits: boolean[]; ended: Promise<void> } {
    let reading = true;
    let waitingFrame: Frame | null = null;
    const discarded: number[] = [];
    const waits: boolean[] = [];
    let taken = 0;
    let resolveEnded!: () => void;
    const ended = new Promise<void>((resolve) => (resolveEnded = resolve));
    let stopped = false;
    const offer = (frame: Frame) => {
      reading = false;
      offeredIds.push(frame.id);
      void scheduler.offer(frame, times[frame.id - 1]! * 1000).then((goOn) => {
        waits.push(scheduler.waiting);
        // The loop stops reading once the scheduler takes no more frames.
        stopped = !goOn;
        if (++taken + discarded.length === times.length || stopped) resolveEnded();
        reading = !stopped;
        const next = waitingFrame;
        waitingFrame = null;
        if (next && !stopped) offer(next);
      });
    };
    times.forEach((at, i) =>
      clock.at(at, () => {
        const frame = { id: i + 1, width: typeof width === 'number' ? width : width(i + 1) };
        if (stopped) return;
        if (reading) offer(frame);
        else {
          if (waitingFrame) discarded.push(waitingFrame.id);
          waitingFrame = frame;
        }
      }),
    );
    return { discarded, waits, ended };
  }

  /**
   * Every frame done with once: those written `shown`, each after it was written, and the others dropped;
   * the loop's `dropped` counts the frames it replaced or had no masks for (and no frame the source discarded).
   */
  function expectAllReleased(count: number): void {
    const offered = offeredIds.length ? [...offeredIds] : Array.from({ length: count }, (_, i) => i + 1);
    expect(offered.length).toBe(count);
    expect(log.done.map((d) => d.id).sort((a, b) => a - b)).toEqual(offered.sort((a, b) => a - b));
    const shown = log.done.filter((d) => d.end === 'shown').map((d) => d.id);
    expect(shown.sort((a, b) => a - b)).toEqual(ids(log.written).sort((a, b) => a - b));
    if (!options.countGaps) expect(log.done.filter((d) => /replaced|no-masks/.test(d.end)).length).toBe(scheduler.dropped);
  }

  return { clock, scheduler, log, answers, camera, expectAllReleased };
}

const ids = (written: Written[]) => written.map((w) => w.id);
const every = (count: number, ms: number, from = ms) => Array.from({ length: count }, (_, i) => from + i * ms);

describe('FrameScheduler: frames that wait for their own mask', () => {
  test('the model takes a frame when it is free; each frame is written on its own masks, in order', async () => {
    const { clock, log, camera, scheduler, expectAllReleased } = rig({ modelMs: () => 20 });
    camera(every(5, 40));
    await clock.run();
    await scheduler.end();
    expect(log.written.map((w) => [w.id, w.masks, w.carried])).toEqual([1, 2, 3, 4, 5].map((id) => [id, id, false]));
    expect(log.kept).toEqual([1, 2, 3, 4, 5]);
    expect(scheduler.dropped).toBe(0);
    expectAllReleased(5);
  });

  test('the carried frame: one that came while the model was busy and was replaced by a newer one is shown on the masks before it, after the frame ahead', async () => {
    const { clock, log, camera, scheduler, expectAllReleased } = rig({ modelMs: () => 100 });
    // Frame 1 at the model (100 ms); 2 comes and waits for it; 3 takes its place, so 2 is carried.
    camera([0, 30, 60]);
    await clock.run();
    await scheduler.end();
    expect(log.modelled).toEqual([1, 3]);
    expect(log.written.map((w) => [w.id, w.masks, w.carried])).toEqual([
      [1, 1, false],
      [2, 1, true],
      [3, 3, false],
    ]);
    // Frame 2 is written once frame 1 is (at 100 ms), not before; frame 3 after its own run (100 + 100).
    expect(log.written.map((w) => w.at)).toEqual([100, 100, 200]);
    expect(scheduler.dropped).toBe(0);
    expectAllReleased(3);
  });

  test('a carried frame that a newer one replaces before its turn is dropped (released, never written)', async () => {
    const { clock, log, camera, scheduler, expectAllReleased } = rig({ modelMs: () => 100 });
    camera([0, 20, 40, 60]);
    await clock.run();
    await scheduler.end();
    // 2 carried when 3 came, 3 carried when 4 came (2 dropped then), 4 at the model after 1.
    expect(log.modelled).toEqual([1, 4]);
    expect(log.written.map((w) => [w.id, w.masks, w.carried])).toEqual([
      [1, 1, false],
      [3, 1, true],
      [4, 4, false],
    ]);
    expect(scheduler.dropped).toBe(1);
    expect(log.done.find((d) => d.id === 2)).toEqual({ id: 2, end: 'dropped:replaced' });
    expectAllReleased(4);
  });

  test('a model slower than the camera: every frame the model took on its own masks, the others carried or dropped, in order, one run at a time', async () => {
    // A frame every 10 ms, runs of 35 ms, writes of 5 ms.
    const { clock, log, camera, scheduler, expectAllReleased } = rig({ modelMs: () => 35, writeMs: 5 });
    camera(every(40, 10));
    await clock.run();
    await scheduler.end();
    const shown = ids(log.written);
    expect(shown).toEqual([...shown].sort((a, b) => a - b));
    expect(log.mostInFlight).toBe(1);
    // The model took about one frame per run, the frame that was newest when it came free.
    expect(log.modelled.length).toBeGreaterThanOrEqual(9);
    expect(log.modelled.length).toBeLessThanOrEqual(13);
    for (const w of log.written) {
      if (w.carried) expect(w.masks).toBeLessThan(w.id);
      else expect(w.masks).toBe(w.id);
    }
    const carried = log.written.filter((w) => w.carried).length;
    expect(carried).toBeGreaterThan(0);
    expect(log.written.length - carried).toBe(log.modelled.length);
    expect(log.written.length + scheduler.dropped).toBe(40);
    expectAllReleased(40);
  });

  test('in order: a frame whose masks are back early is written once the frame before it is, one write at a time', async () => {
    // Runs of 10 ms, writes of 50 ms: frame 2's masks are back (at 30 ms) while frame 1 is being written.
    const { clock, log, camera, scheduler, expectAllReleased } = rig({ modelMs: () => 10, writeMs: 50 });
    camera([0, 20, 40]);
    await clock.run();
    await scheduler.end();
    expect(log.written.map((w) => [w.id, w.masks, w.carried, w.at])).toEqual([
      [1, 1, false, 60],
      [2, 2, false, 110],
      [3, 3, false, 160],
    ]);
    expect(log.mostWriting).toBe(1);
    expectAllReleased(3);
  });

  test('a failed run: the frame is shown on the last good masks with the failure, and the loop goes on', async () => {
    const { clock, log, camera, scheduler, expectAllReleased } = rig({ modelMs: () => 20, fails: (id) => id === 2 });
    camera(every(3, 40));
    await clock.run();
    await scheduler.end();
    expect(log.written).toEqual([
      expect.objectContaining({ id: 1, masks: 1, carried: false }),
      { id: 2, masks: 1, carried: false, failure: 'run 2 failed', at: 100 },
      expect.objectContaining({ id: 3, masks: 3, carried: false }),
    ]);
    expect(log.written[2]!.failure).toBeUndefined();
    expect(scheduler.error).toBeNull();
    expectAllReleased(3);
  });

  test('a failed run with no good masks yet fails the loop: that frame is done with the error, later ones are not taken', async () => {
    const { clock, log, camera, scheduler, expectAllReleased } = rig({ modelMs: () => 20, fails: (id) => id === 1 });
    const { ended } = camera(every(3, 40));
    await clock.run();
    await ended;
    await scheduler.end();
    expect(log.written).toEqual([]);
    expect(log.failed).toEqual(['run 1 failed']);
    expect(log.done).toEqual([
      { id: 1, end: 'dropped:failed', error: 'run 1 failed' },
      { id: 2, end: 'dropped:ended' },
    ]);
    expect(scheduler.ending).toBe(true);
    // Frame 3 never came to the loop (it stopped taking frames at 2).
    expect(log.modelled).toEqual([1]);
    expectAllReleased(2);
  });
});

describe('FrameScheduler: the input drawn before the model is back', () => {
  test('waiting: a frame whose input fails as it comes fails the loop, and is released and done once (never held)', async () => {
    const { clock, log, camera, scheduler, expectAllReleased } = rig({
      waitForMask: true,
      modelMs: () => 30,
      prepareFails: (id) => id === 2,
    });
    // Frame 2 comes while the model runs on frame 1: its input is drawn as it comes, and fails.
    const { ended } = camera([0, 10, 50]);
    await clock.run();
    await ended;
    await scheduler.end();
    expect(log.failed).toEqual(['input 2 failed']);
    expect(log.done.filter((d) => d.id === 2)).toEqual([{ id: 2, end: 'dropped:failed', error: 'input 2 failed' }]);
    expect(log.modelled).toEqual([1]);
    expectAllReleased(2);
  });

  test('waiting: the held frame that is last before the model is due back has its input drawn as it comes; the model takes it the moment it is back', async () => {
    // A 60 frames/s camera, runs of 22 ms: a frame is held during every run.
    const { clock, log, camera, scheduler } = rig({ waitForMask: true, pace: new MaskPace(60), modelMs: () => 22 });
    camera(every(90, 1000 / 60));
    await clock.run();
    await scheduler.end();
    // Past the warm-up, each run begins as the one before it is back: the model is never idle.
    const starts = log.modelledAt.slice(5);
    expect(starts.length).toBeGreaterThan(30);
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeCloseTo(22, 6);
    // Its input was drawn when the frame came, less than a frame interval before the model was back
    // (where a frame came just as the model was back, it went to it at once).
    const early = log.modelled.slice(5).map((id, i) => starts[i]! - log.preparedAt.get(id)!);
    expect(early.every((ms) => ms >= 0 && ms < 1000 / 60)).toBe(true);
    expect(early.filter((ms) => ms > 0).length).toBeGreaterThan(0.8 * early.length);
    // Each frame the model took was written on its own masks; the others carried.
    expect(log.written.filter((w) => !w.carried).every((w) => w.masks === w.id)).toBe(true);
    expect(log.written.filter((w) => !w.carried).map((w) => w.id)).toEqual(log.modelled);
  });
});

describe('FrameScheduler: frames that do not wait for their mask (waitForMask: false)', () => {
  /** A 60 frames/s camera's loop whose runs take 13 ms and whose masks take 5 ms to make. */
  const slowMasksRig = () => rig({ waitForMask: false, pace: new MaskPace(60), modelMs: () => 13, finishMs: 5 });

  test('each frame is written at once on the newest masks; the model takes the newest input the moment it is back', async () => {
    const { clock, log, camera, scheduler, expectAllReleased } = rig({ waitForMask: false, modelMs: () => 100 });
    // A frame every 30 ms from 30 ms, runs of 100 ms.
    camera(every(12, 30));
    await clock.run();
    await scheduler.end();
    // The first frame waits for its own masks (none yet). Meanwhile the camera kept the newest frame (4)
    // and discarded 2 and 3; 4 is taken once 1 is written, and goes to the model (free then).
    expect(log.written[0]).toMatchObject({ id: 1, masks: 1, carried: false, at: 130 });
    expect(log.written[1]).toMatchObject({ id: 4, masks: 1, carried: true, at: 130 });
    expect(ids(log.written)).toEqual([1, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    // Every later frame is written as it comes.
    for (const w of log.written.slice(2)) expect(w.at).toBe(w.id * 30);
    // The round trip is not known yet (the first two are the warm-up): each frame that comes while the
    // model is busy has its input drawn, the newest replacing the last, and the model takes it as soon as
    // it is back (7 at 230, not 8 at 240); 11 came at 330 just before the run on 7 was back.
    expect(log.modelled).toEqual([1, 4, 7, 11]);
    expect(log.written.filter((w) => w.id >= 5).map((w) => w.masks)).toEqual([1, 1, 1, 4, 4, 4, 4, 7]);
    expect(log.written.slice(1).every((w) => w.carried)).toBe(true);
    expect(log.kept).toEqual([]);
    expect(log.mostInFlight).toBe(1);
    expectAllReleased(12 - 2);
  });

  test('once the round trip is known, only the last frame before the model is due back has its input drawn', async () => {
    // A 60 frames/s camera, runs of 40 ms: a run spans two to three frame intervals.
    const { clock, log, camera, scheduler, expectAllReleased } = rig({ waitForMask: false, pace: new MaskPace(60), modelMs: () => 40 });
    const { discarded } = camera(every(120, 1000 / 60));
    await clock.run();
    await scheduler.end();
    // Past the warm-up, the model is never idle: each run begins as the last one is back, on a frame that
    // came less than a frame interval before (its input drawn then).
    const runs = log.modelled.slice(5);
    expect(runs.length).toBeGreaterThan(40);
    const prepared = log.prepared.slice(log.prepared.indexOf(runs[0]!));
    // Inputs drawn for frames a newer one replaced are few: where a frame comes just as the run is due.
    expect(runs.every((id) => prepared.includes(id))).toBe(true);
    expect(prepared.length - runs.length).toBeLessThanOrEqual(runs.length / 4);
    // 2 s of 40 ms runs back to back: about 50 runs (not one run every third frame, 40).
    expect(log.modelled.length).toBeGreaterThanOrEqual(47);
    // A frame is shown on masks made from a frame at most about 6 intervals before it: up to one interval
    // its input waited, the run (2.4 intervals), and the next run before newer masks come.
    const after = log.written.filter((w) => w.id > 20);
    expect(after.every((w) => w.carried && w.id - w.masks <= 6)).toBe(true);
    expect(log.kept).toEqual([]);
    expect(log.mostInFlight).toBe(1);
    expectAllReleased(120 - discarded.length);
  });

  test("a run's masks are made once the model has the next input, so that it runs meanwhile", async () => {
    const { clock, log, camera, scheduler } = rig({ waitForMask: false, pace: new MaskPace(60), modelMs: () => 40 });
    camera(every(60, 1000 / 60));
    await clock.run();
    await scheduler.end();
    // Past the warm-up, every run's masks were made with the next run already at the model.
    const later = log.finished.slice(5, -1);
    expect(later.length).toBeGreaterThan(15);
    for (const { from, atModel } of later) expect(atModel).toBeGreaterThan(from);
    // Masks in the order of the runs.
    expect(log.finished.map((f) => f.from)).toEqual(log.modelled.slice(0, log.finished.length));
  });

  test('masks that would still be in the making when the next frame comes are made once that frame is at the model; the model takes every frame', async () => {
    // A 60 frames/s camera, runs of 13 ms, 5 ms to make a run's masks: made as each run is back, they would
    // end 1.3 ms after the next frame came, and each frame would go to the model later than the last.
    const { clock, log, camera, scheduler, expectAllReleased } = slowMasksRig();
    const times = every(120, 1000 / 60);
    const { discarded } = camera(times);
    await clock.run();
    await scheduler.end();
    // Past the warm-up, every frame goes to the model as it comes, and is shown on the masks of the one before.
    const later = log.written.filter((w) => w.id > 10);
    expect(later.map((w) => w.id)).toEqual(every(110, 1, 11));
    for (const w of later) expect(w).toMatchObject({ masks: w.id - 1, carried: true });
    for (const id of every(110, 1, 11)) expect(log.modelledAt[log.modelled.indexOf(id)]).toBeCloseTo(times[id - 1]!, 6);
    // Each run's masks made in the order of the runs, the last one's too (by end()).
    expect(log.finished.map((f) => f.from)).toEqual(log.modelled);
    expect(discarded).toEqual([]);
    expectAllReleased(120);
  });

  test('a frame with no masks of its size waits for its own, made at once even where they would otherwise wait for the next frame', async () => {
    // As above, and from frame 61 the camera gives frames half as wide: 61 waits for its own masks, which
    // would otherwise be left for a frame after it to have made (the loop reads none until 61 is written).
    const { clock, log, camera, scheduler, expectAllReleased } = slowMasksRig();
    const { discarded } = camera(every(120, 1000 / 60), (id) => (id <= 60 ? 640 : 320));
    await clock.run();
    await scheduler.end();
    const taken = 120 - discarded.length;
    expect(log.written.length).toBe(taken);
    expect(log.written.find((w) => w.id === 61)).toMatchObject({ masks: 61, carried: false });
    // Then as before: each frame on the masks of the frame before it.
    expect(log.written.filter((w) => w.id > 70).every((w) => w.masks === w.id - 1)).toBe(true);
    expectAllReleased(taken);
  });

  test('a failed run is reported by the next frame shown, not the one it was for', async () => {
    const { clock, log, camera, scheduler } = rig({ waitForMask: false, modelMs: () => 30, fails: (id) => id === 3 });
    camera(every(8, 40));
    await clock.run();
    await scheduler.end();
    expect(log.modelled.slice(0, 3)).toEqual([1, 2, 3]);
    const failed = log.written.filter((w) => w.failure);
    expect(failed).toEqual([expect.objectContaining({ id: 4, failure: 'run 3 failed' })]);
    // Frame 3 itself was shown at once, on frame 2's masks, with no failure yet.
    expect(log.written.find((w) => w.id === 3)).toMatchObject({ masks: 2, carried: true });
    expect(log.written.find((w) => w.id === 3)!.failure).toBeUndefined();
  });
});

/** A pace that answers choose() from a script, for changes at chosen frames. */
function scriptedPace(script: boolean[], frameRate?: number): MaskPace {
  const pace = new MaskPace(frameRate);
  let n = 0;
  pace.choose = () => script[Math.min(n++, script.length - 1)]!;
  return pace;
}

describe('FrameScheduler: a change of way with frames in flight', () => {
  test('waiting → not: the frames in flight are written first (the held one carried), then frames are shown at once', async () => {
    // Frame 1 on its own masks; 2 at the model when 3 comes (held); at 4 frames stop waiting.
    const { clock, log, camera, scheduler, expectAllReleased } = rig({
      waitForMask: 'auto',
      pace: scriptedPace([true, true, true, false]),
      modelMs: () => 100,
    });
    camera([0, 150, 200, 220, 400]);
    await clock.run();
    await scheduler.end();
    expect(log.written.map((w) => [w.id, w.masks, w.carried])).toEqual([
      [1, 1, false],
      [2, 2, false],
      [3, 2, true],
      [4, 2, true],
      [5, 4, true],
    ]);
    // Frame 4 waited for the run on frame 2 (back at 250) and the frames before it: never two ways at once.
    expect(log.written.map((w) => w.at)).toEqual([100, 250, 250, 250, 400]);
    expect(log.mostInFlight).toBe(1);
    expectAllReleased(5);
  });

  test('waiting → not, with masks that take longer than the frame interval allows: the run in flight when frames stop waiting has its masks made at once (its frame waits for them)', async () => {
    const script = [...Array.from({ length: 20 }, () => true), false];
    const { clock, log, camera, scheduler, expectAllReleased } = rig({
      waitForMask: 'auto',
      pace: scriptedPace(script, 60),
      modelMs: () => 16,
      finishMs: 12,
    });
    // Frames wait until frame 21 (at 350 ms); the run in flight then comes back at about 361 ms with 12 ms of
    // masks to make, past the next frame (367 ms): a run begun while frames did not wait would have them
    // made once that frame is at the model, and this one's frame, which waits for them, would never be written.
    const { discarded } = camera(every(60, 1000 / 60));
    await clock.run();
    await scheduler.end();
    // Every frame taken is written, in order, and (once the model runs as frames come) on masks of the frame before.
    const taken = 60 - discarded.length;
    expect(log.written.length).toBe(taken);
    expect(ids(log.written)).toEqual([...ids(log.written)].sort((a, b) => a - b));
    expect(log.written.filter((w) => w.id > 40).every((w) => w.masks === w.id - 1)).toBe(true);
    expectAllReleased(taken);
  });

  test('not → waiting: the model run in flight comes back first, then each frame waits for its own mask again', async () => {
    const { clock, log, camera, scheduler, expectAllReleased } = rig({
      waitForMask: 'auto',
      pace: scriptedPace([false, false, false, true]),
      modelMs: () => 100,
    });
    // Waiting is where frames start: the first frame changes the way (to not waiting).
    camera([0, 150, 175, 200, 400]);
    await clock.run();
    await scheduler.end();
    // Frame 2 went to the model (free at 150) while shown on frame 1's masks; 3 on frame 1's too.
    expect(log.written.map((w) => [w.id, w.masks, w.carried])).toEqual([
      [1, 1, false],
      [2, 1, true],
      [3, 1, true],
      [4, 4, false],
      [5, 5, false],
    ]);
    // Frame 4 waits: for the run on frame 2 (back at 250), then for its own (350).
    expect(log.modelled).toEqual([1, 2, 4, 5]);
    expect(log.written.find((w) => w.id === 4)!.at).toBe(350);
    expect(log.mostInFlight).toBe(1);
    expectAllReleased(5);
  });
});

describe("FrameScheduler with waitForMask 'auto' and MaskPace (the camera's pace, measured)", () => {
  test('a model slower than a 60 frames/s camera: frames stop waiting at the 10th frame and are shown as they come', async () => {
    const { clock, log, camera, scheduler } = rig({ waitForMask: 'auto', pace: new MaskPace(60), countGaps: true, modelMs: () => 40 });
    const { waits } = camera(every(120, 1000 / 60));
    await clock.run();
    await scheduler.end();
    expect(waits.indexOf(false)).toBe(9);
    expect(waits.slice(9).every((w) => !w)).toBe(true);
    // Not waiting, the loop takes every frame (it is free for each), on masks about 3 frames old.
    const after = log.written.filter((w) => w.id > 20);
    expect(after.length).toBe(100);
    expect(after.every((w) => w.carried && w.id - w.masks <= 5)).toBe(true);
  });

  test('a camera faster than its track says, so that frames are carried while they wait: they stop waiting, though the round trip is under the interval it says', async () => {
    // A track that says 60 frames/s and gives 120; runs of 16 ms, under 1.1 of the 16.7 ms it says. Two
    // frames come during most runs: one is held, the next takes its place (the held one is carried).
    const { clock, log, camera, scheduler } = rig({ waitForMask: 'auto', pace: new MaskPace(60), modelMs: () => 16 });
    const { waits } = camera(every(240, 1000 / 120));
    await clock.run();
    await scheduler.end();
    const stop = waits.indexOf(false);
    expect(stop).toBeGreaterThan(9);
    expect(stop).toBeLessThan(80);
    // For good: not waiting, a 16 ms round trip is not under 0.8 of 16.7 ms.
    expect(waits.slice(stop).every((w) => !w)).toBe(true);
    // While they waited, over a quarter of the frames were carried.
    const waited = log.written.filter((w) => w.id <= stop);
    expect(waited.filter((w) => w.carried).length).toBeGreaterThan(waited.length / 4);
  });

  test('a camera slower than its frame rate says (low light): frames stop waiting, then wait again for good, and none is counted dropped', async () => {
    // A track that says 60 frames/s, a frame every 400 ms, runs of 170 ms.
    const { clock, log, camera, scheduler } = rig({ waitForMask: 'auto', pace: new MaskPace(60), countGaps: true, modelMs: () => 170 });
    const { waits } = camera(every(40, 400));
    await clock.run();
    await scheduler.end();
    const runs = waits.map(Number).join('');
    expect(runs).toMatch(/^1{9}0+1+$/);
    const back = runs.lastIndexOf('0') + 1;
    expect(back).toBeLessThanOrEqual(22);
    // From then on every frame on its own masks; and the loop waited for each frame, so none was dropped.
    expect(log.written.filter((w) => w.id > back + 1).every((w) => !w.carried && w.masks === w.id)).toBe(true);
    expect(scheduler.dropped).toBe(0);
  });

  test("the model's own work, where it reports it, judges whether frames wait: not round trips long by the time besides", async () => {
    // A 60 frames/s camera; round trips of 12–22 ms (18.7 on average, over the interval), of which the
    // model works 11 ms where it says so: 11 + the least besides (1 ms) is well under the interval.
    const run = async (reported: boolean) => {
      const { clock, camera, scheduler } = rig({
        waitForMask: 'auto',
        pace: new MaskPace(60),
        modelMs: (id) => [12, 22, 22][id % 3]!,
        ...(reported ? { modelWork: () => 11 } : {}),
      });
      const { waits } = camera(every(60, 1000 / 60));
      await clock.run();
      await scheduler.end();
      return waits;
    };
    // Reported: frames go on waiting past the 10th (until frames carried say otherwise).
    expect((await run(true)).slice(0, 20).every(Boolean)).toBe(true);
    // Not reported: the round trips decide, and frames stop waiting within 20 frames, for good.
    const unreported = await run(false);
    const stop = unreported.indexOf(false);
    expect(stop).toBeGreaterThanOrEqual(9);
    expect(stop).toBeLessThan(20);
    expect(unreported.slice(stop).every((w) => !w)).toBe(true);
  });

  test('frames a busy loop left unread count as carried: a quarter of them and frames stop waiting, though the model keeps pace', async () => {
    // A 60 frames/s camera read one frame in four (the loop busy, the source discarding the rest), a 5 ms model.
    const run = async (countGaps: boolean) => {
      const { clock, scheduler } = rig({ waitForMask: 'auto', pace: new MaskPace(60), countGaps, modelMs: () => 5 });
      const waits: boolean[] = [];
      for (let n = 1; n <= 40; n++) {
        clock.at(n * 16.7, () => {
          void scheduler.offer({ id: n, width: 640 }, n * 4 * 16.7 * 1000).then(() => waits.push(scheduler.waiting));
        });
      }
      await clock.run();
      await scheduler.end();
      return { waits, dropped: scheduler.dropped };
    };
    const counted = await run(true);
    expect(counted.dropped).toBe(39 * 3);
    const stop = counted.waits.indexOf(false);
    expect(stop).toBeGreaterThanOrEqual(9);
    expect(stop).toBeLessThan(20);
    // Where the gaps are not counted (a source that says nothing of them), frames go on waiting.
    expect((await run(false)).waits.every(Boolean)).toBe(true);
  });

  test('frames a busy loop did not read are counted dropped from the gaps between timestamps', async () => {
    // Waiting, with writes of 50 ms: a 60 frames/s camera, the loop reads every third or fourth frame late.
    const { clock, camera, scheduler, log } = rig({
      waitForMask: false,
      pace: new MaskPace(60),
      countGaps: true,
      modelMs: () => 5,
      writeMs: 50,
    });
    const { discarded } = camera(every(60, 1000 / 60));
    await clock.run();
    await scheduler.end();
    expect(discarded.length).toBeGreaterThan(30);
    // Counted from the timestamps, to within a frame or two of what the camera discarded.
    expect(Math.abs(scheduler.dropped - discarded.length)).toBeLessThanOrEqual(2);
    expect(log.written.length + discarded.length).toBe(60);
  });
});

describe('FrameScheduler: offers that overlap (the frames path sends two frames in flight)', () => {
  test('frames offered before the last was taken are taken in order, and each is done once', async () => {
    const { clock, log, scheduler, expectAllReleased } = rig({ modelMs: () => 30 });
    const taken = [1, 2, 3].map((id) => scheduler.offer({ id, width: 640 }, id * 1000));
    await clock.run();
    expect(await Promise.all(taken)).toEqual([true, true, true]);
    await scheduler.end();
    expect(log.written.map((w) => [w.id, w.masks, w.carried])).toEqual([
      [1, 1, false],
      [2, 1, true],
      [3, 3, false],
    ]);
    expectAllReleased(3);
  });

  test('stop(): no frame taken after it, and the held frame is let go by end()', async () => {
    const { clock, log, scheduler, answers, expectAllReleased } = rig({ timed: false });
    await scheduler.offer({ id: 1, width: 640 }, 0);
    await scheduler.offer({ id: 2, width: 640 }, 1000);
    scheduler.stop();
    expect(await scheduler.offer({ id: 3, width: 640 }, 2000)).toBe(false);
    const ended = scheduler.end();
    answers.shift()!.answer();
    await clock.run();
    await ended;
    // Frame 1 is written (the writer decides what a stopped loop writes); 2 was held, 3 never taken.
    expect(ids(log.written)).toEqual([1]);
    expect(log.modelled).toEqual([1]);
    expect(log.done).toEqual([
      { id: 3, end: 'dropped:ended' },
      { id: 2, end: 'dropped:ended' },
      { id: 1, end: 'shown' },
    ]);
    // Neither counts as dropped: the loop stopped, it did not drop them.
    expect(scheduler.dropped).toBe(0);
    expectAllReleased(3);
  });

  test('a frame the writer did not write (its loop stopped) ends dropped, uncounted', async () => {
    const { clock, log, camera, scheduler, expectAllReleased } = rig({ modelMs: () => 20, writes: (id) => id !== 2 });
    camera(every(3, 40));
    await clock.run();
    await scheduler.end();
    expect(ids(log.written)).toEqual([1, 3]);
    expect(log.done.map((d) => [d.id, d.end])).toEqual([
      [1, 'shown'],
      [2, 'dropped:ended'],
      [3, 'shown'],
    ]);
    expect(scheduler.dropped).toBe(0);
    expectAllReleased(3);
  });
});

describe("A frame's states", () => {
  const states: FrameState[] = [
    { is: 'read' },
    { is: 'waiting' },
    { is: 'segmenting' },
    { is: 'carried' },
    { is: 'compositing' },
    { is: 'shown' },
    { is: 'dropped', why: 'ended' },
  ];

  test('a frame moves only along FRAME_MOVES: never back to read, only compositing to shown, shown and dropped its ends', () => {
    for (const from of states) {
      for (const to of states) {
        if ((FRAME_MOVES[from.is] as readonly string[]).includes(to.is)) expect(moveFrame(from, to)).toBe(to);
        else expect(() => moveFrame(from, to), `${from.is} -> ${to.is}`).toThrow(`a ${from.is} frame cannot be ${to.is}`);
      }
    }
    const into = (is: FrameState['is']) =>
      states.filter((from) => (FRAME_MOVES[from.is] as readonly string[]).includes(is)).map((s) => s.is);
    expect(into('read')).toEqual([]);
    expect(into('shown')).toEqual(['compositing']);
    // A carried frame is shown on earlier masks: it never goes to the model.
    expect(into('segmenting')).toEqual(['read', 'waiting']);
    expect([FRAME_MOVES.shown, FRAME_MOVES.dropped]).toEqual([[], []]);
  });

  test("a carried frame whose turn comes with no masks of its size is dropped ('no-masks', counted)", async () => {
    // Frame 1 (640 wide) at the model; 2 (320 wide) is held, then carried when 3 comes: at its turn the only
    // masks are frame 1's, of another size.
    const { clock, log, camera, scheduler, expectAllReleased } = rig({ modelMs: () => 100 });
    camera([0, 30, 60], (id) => (id === 2 ? 320 : 640));
    await clock.run();
    await scheduler.end();
    expect(log.written.map((w) => [w.id, w.masks, w.carried])).toEqual([
      [1, 1, false],
      [3, 3, false],
    ]);
    expect(log.done.find((d) => d.id === 2)).toEqual({ id: 2, end: 'dropped:no-masks' });
    expect(scheduler.dropped).toBe(1);
    expectAllReleased(3);
  });
});

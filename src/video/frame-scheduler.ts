// What happens to each frame of the live loop, and nothing else: which frame the model takes, which waits
// for it, which is carried or dropped, in what order frames are written, and when frames stop or start
// waiting for their own mask. Pure: the model, the writer, the frame's release and the clock are injected,
// so every path (the page's track processor, the track in a worker, the main thread's frames) runs the
// same rules, and Node tests them with fake frames and a fake clock.
import type { MaskPace } from './mask-pace.js';

/** What a frame is shown with: its own masks, or (`carried`) the newest ones made from an earlier frame. */
export interface Shown<M> {
  masks: M;
  /** The model did not take this frame: `masks` were made from an earlier one. */
  carried: boolean;
  /** The model failed on this frame (or, while frames do not wait, on one before it): `masks` are the last good ones. */
  failure?: unknown;
}

/** A model run, back: how long the model itself worked on it, and how its masks are made. */
export interface ModelRun<M> {
  /** The model's own work on the run (ms, in its thread), where it tells it: the pace's round trip less messages. */
  work?: number;
  /**
   * The run's masks (`roundTrip`: ms from its input sent to the model's result back): called once, when
   * the model has the next input (where one waits), so that it runs meanwhile; in the order of the runs.
   */
  masks(roundTrip: number): M;
}

/**
 * What the scheduler calls; `F` is a frame as the path has it, `I` a network input, `M` the masks a model
 * run gives, `R` a written frame's report.
 */
export interface SchedulerHooks<F extends object, I, M, R> {
  /** The clock, ms. */
  now(): number;
  /** The frame waits for its own mask and may be held meanwhile: anything it must not hold (a camera's buffer) is let go now. */
  keep(frame: F): void;
  /** The frame's network input, drawn now (the model takes it later, and the frame may be released first). */
  prepare(frame: F): I;
  /** One model run; the scheduler makes one at a time. */
  model(input: I): Promise<ModelRun<M>>;
  /** Whether masks made from another frame can be shown on this one (the same size). */
  fits(masks: M, frame: F): boolean;
  /** Composites the frame with `shown` and writes it; its report, or undefined where nothing was written. */
  write(frame: F, shown: Shown<M>): Promise<R | undefined>;
  /** Done with the frame (called once for each frame offered, whatever happened to it). */
  release(frame: F): void;
  /** After release: the frame's report where it was written, else undefined (`error`: the loop failed on it). */
  done(frame: F, report: R | undefined, error?: unknown): void;
  /** A frame was dropped (a carried frame replaced before its turn, or one with no masks to be shown on). */
  dropped?(): void;
  /** The loop failed (a frame that had no masks to fall back on, or a write that failed): it takes no frame from now on. */
  failed?(error: unknown): void;
}

export interface SchedulerOptions {
  /** Whether frames wait for their own mask: always, never, or (`'auto'`) while `pace` says the loop keeps up. */
  waitForMask: boolean | 'auto';
  /** The pace of the camera, the model and the loop (MaskPace; its frame rate the track's). */
  pace: MaskPace;
  /**
   * Count frames the source discarded unseen from the gaps between timestamps (µs) at the camera's
   * interval (a track processor keeps one frame and discards older ones while the loop is busy).
   */
  countGaps: boolean;
}

interface Outcome<M> {
  masks: M;
  failure?: unknown;
}

const noop = () => undefined;

/**
 * The frame loop's rules:
 * - **Waiting for the mask**: a frame goes to the model when it is free, and is written on its own masks
 *   once the frame before it is written. One that comes while the model is busy waits in a one-frame slot
 *   (`held`); when a newer one takes the slot, the older one is **carried**: shown on the masks of the
 *   frame before it, once that one is written, instead of dropped. A carried frame that a newer one
 *   replaces before its turn is **dropped**. Frames are never queued. The held frame that is the last to
 *   come before the model is due back has its input drawn as it comes, so that the model takes it at once.
 * - **Not waiting**: each frame is written at once on the newest masks, and goes to the model too when it
 *   is free (its masks are for the frames after it); only a frame with no masks of its size yet waits.
 *   One frame at a time: the next is taken once this one is written. The model is never left idle for
 *   want of a frame: the last frame that comes before the model is due back (its round trip as measured,
 *   against the camera's interval) has its input drawn then, and the model takes that input the moment it
 *   is back (a newer frame's replaces it). The frame itself is written and released at once. A run's
 *   masks are made as it is back, unless the model is then idle for want of a frame and making them would
 *   still run when the next frame is due: they are then made once that frame has gone to the model, and
 *   that frame is shown on them, so that the model is not kept waiting (frames that wait for masks of
 *   their size, and runs begun while frames waited, have theirs made at once).
 * - **A change of way** (`waitForMask: 'auto'`) starts once the frames in flight are written and the
 *   model is back; the held frame is carried. The two ways never overlap.
 * - **A failed run**: the frame is shown on the last good masks, with the failure (while frames do not
 *   wait, the next frame shown reports it); with no good masks yet, the loop fails.
 * - **In order**: each frame's write follows the one before it; every frame offered is released once.
 */
export class FrameScheduler<F extends object, I, M, R> {
  readonly #hooks: SchedulerHooks<F, I, M, R>;
  readonly #mode: boolean | 'auto';
  readonly #countGaps: boolean;
  /** The pace of the camera, the model and the loop; a path feeds it what compositing costs (`composite`). */
  readonly pace: MaskPace;
  #waiting: boolean;
  /** The model's run in flight (settles, never rejecting, once its masks are made); null once the model is back. */
  #modelCall: Promise<void> | null = null;
  /** The newest frame that came while the model was busy: the model takes it next. */
  #held: F | null = null;
  /**
   * The input of the last frame before the model is due back, drawn as it came, so that the model takes it
   * the moment it is back: the held frame's while frames wait, else a frame's already written.
   */
  #queued: I | null = null;
  /** When the model's run in flight began (ms); how long the model takes to give back is the pace's `tripMs`. */
  #runStarted = 0;
  /** Not waiting: the last run's masks, to be made once the next frame has gone to the model (see #finishLater). */
  #deferred: (() => void) | null = null;
  /** Frames that wait (not waiting for their mask) for masks of their size, which no run may defer; whether the source ended. */
  #awaiting = 0;
  #ended = false;
  /** A frame shown on the masks before it once the frame ahead of it is written (at most one waits). */
  #carried: F | null = null;
  /** The last frame's output (settles once it is written, or dropped, and released). */
  #written: Promise<void> = Promise.resolve();
  /** Every frame's output, for end(). */
  #pending: Promise<void> = Promise.resolve();
  /** The last good masks. */
  #last: M | null = null;
  /** While frames do not wait: a failed run, for the next frame shown to report. */
  #unreported: { error: unknown } | null = null;
  /** What keeping a frame cost (ms), counted in the loop's own work on it. */
  readonly #keepMs = new WeakMap<F, number>();
  readonly #released = new WeakSet<F>();
  /** Frames offered and not taken yet; when the last one was taken (ms). */
  #intakes = 0;
  #readyAt = 0;
  #intake: Promise<unknown> = Promise.resolve();
  #lastTimestamp: number | null = null;
  #dropped = 0;
  #error: { error: unknown } | null = null;
  #stopped = false;

  constructor(hooks: SchedulerHooks<F, I, M, R>, options: SchedulerOptions) {
    this.#hooks = hooks;
    this.#mode = options.waitForMask;
    this.pace = options.pace;
    this.#countGaps = options.countGaps;
    this.#waiting = options.waitForMask !== false;
    this.#readyAt = hooks.now();
  }

  /** Whether frames wait for their own mask now. */
  get waiting(): boolean {
    return this.#waiting;
  }

  /** Frames dropped: by this loop, and (`countGaps`) by the source before this loop saw them. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Whether the loop takes no more frames (stopped, or failed). */
  get ending(): boolean {
    return this.#stopped || this.#error !== null;
  }

  /** Why the loop failed, where it did. */
  get error(): { error: unknown } | null {
    return this.#error;
  }

  /**
   * A frame came (stamped `timestamp`, µs; `skipped`: the camera's frames its source skipped since the last
   * one offered, which the pace counts, and `countGaps` does not). Resolves once the loop can take the next
   * one: at once while frames wait for their mask, once this one is written while they do not. False where
   * the loop takes no more frames (this one was released).
   */
  offer(frame: F, timestamp: number, skipped = 0): Promise<boolean> {
    const arrived = this.#hooks.now();
    // How long the loop had nothing to do before this frame came (none while one is being taken).
    const idle = this.#intakes === 0 ? Math.max(0, arrived - this.#readyAt) : 0;
    this.#intakes++;
    const taken = this.#intake.then(() => this.#take(frame, timestamp, arrived, idle, skipped));
    this.#intake = taken;
    return taken;
  }

  /** Takes no more frames; frames in work finish (a frame still to be written is not written where the writer checks). */
  stop(): void {
    this.#stopped = true;
    this.#finishDeferred();
  }

  /** Fails the loop from outside (the source failed): no more frames. */
  fail(error: unknown): void {
    if (this.#error) return;
    this.#error = { error };
    this.#hooks.failed?.(error);
  }

  /** The source ended: the held frame is released (not shown), and what is in work finishes. */
  async end(): Promise<void> {
    this.#ended = true;
    this.#finishDeferred();
    if (this.#held) this.#discard(this.#held);
    [this.#held, this.#queued] = [null, null];
    await this.#pending;
  }

  async #take(frame: F, timestamp: number, arrived: number, idle: number, skipped: number): Promise<boolean> {
    try {
      this.pace.frame(arrived, this.#waiting, idle, skipped + 1);
      // A frame the loop waited for most of the time since the last: none came meanwhile to be discarded.
      const gap = this.#lastTimestamp === null ? 0 : (timestamp - this.#lastTimestamp) / 1000;
      if (this.#countGaps && gap > 0 && idle < gap / 2) {
        const unread = Math.max(0, Math.round(gap / this.pace.interval) - 1);
        this.#dropped += unread;
        if (this.#waiting && unread > 0) this.pace.carried(unread);
      }
      this.#lastTimestamp = timestamp;
      if (this.#waitingChanged()) {
        this.#finishDeferred();
        // The frames in flight are written first, so that the two ways never overlap; the frame waiting
        // for the model is shown on the masks before it.
        if (this.#held) this.#carry(this.#held);
        [this.#held, this.#queued] = [null, null];
        await Promise.all([this.#written, this.#modelCall]);
      }
      if (this.ending) {
        this.#discard(frame);
        return false;
      }
      if (!this.#waiting) {
        this.#output(
          frame,
          this.#latest(frame).then((shown) => this.#hooks.write(frame, shown)),
        );
        await this.#written;
        return true;
      }
      const t0 = this.#hooks.now();
      this.#hooks.keep(frame);
      this.#keepMs.set(frame, this.#hooks.now() - t0);
      if (!this.#modelCall) this.#begin(frame);
      else {
        // The frame the model takes next is the newest; the one it replaces is shown on the last masks.
        if (this.#held) {
          this.#carry(this.#held);
          this.pace.carried();
        }
        [this.#held, this.#queued] = [null, null];
        // Drawn before the frame is held: one whose input fails is released here (below), not held.
        const input = this.#lastBeforeModel() ? this.#prepare(frame) : null;
        [this.#held, this.#queued] = [frame, input];
      }
      return true;
    } catch (error) {
      this.fail(error);
      this.#release(frame);
      this.#hooks.done(frame, undefined, error);
      return false;
    } finally {
      this.#intakes--;
      this.#readyAt = this.#hooks.now();
    }
  }

  /** Sets the way frames take masks from this frame on (with 'auto', from the pace); true when it changed. */
  #waitingChanged(): boolean {
    const waiting = this.#mode === 'auto' ? this.pace.choose() : this.#mode;
    if (waiting === this.#waiting) return false;
    this.#waiting = waiting;
    return true;
  }

  /** Waiting: the frame to the model (its input, where drawn already), written on its masks once the frame before it is written. */
  #begin(frame: F, input: I | null = null): void {
    const outcome = this.#run(input === null ? frame : { input });
    const before = this.#written;
    this.#output(
      frame,
      outcome.then(async (result) => {
        await before;
        return this.#hooks.write(frame, { ...result, carried: false });
      }),
    );
  }

  /**
   * The model's run on `frame`: its input drawn now, then its masks, or the last good ones with the
   * failure (none yet: the run rejects). When it is back, the held frame goes to the model, before anything
   * waiting on this run (the model runs while this frame is composited).
   */
  #run(frame: F | { input: I }, deferrable = false): Promise<Outcome<M>> {
    let settle!: () => void;
    // Settles once this run's masks are made (or it failed), whatever ran on the model after it.
    const call = new Promise<void>((resolve) => (settle = resolve));
    this.#modelCall = call;
    const outcome = this.#outcome(frame, () => this.#modelBack(call), deferrable);
    void outcome.then(settle, settle);
    return outcome;
  }

  /** The model gave back (or failed): the held frame, or the queued input, goes to it now. */
  #modelBack(call: Promise<void>): void {
    if (this.#modelCall === call) this.#modelCall = null;
    const next = this.#held;
    const queued = this.#queued;
    [this.#held, this.#queued] = [null, null];
    if (next) {
      if (this.ending) this.#discard(next);
      else this.#begin(next, queued);
    } else if (queued !== null && !this.ending && !this.#waiting) this.#reportLater(this.#run({ input: queued }, true));
  }

  /**
   * The run on `frame` (or on an input drawn already): its input drawn now, then the model's result; once
   * the model is back (`back`: the next frame goes to it) its masks are made. A failure gives the last good
   * masks with it (none yet: the run rejects).
   */
  async #outcome(frame: F | { input: I }, back: () => void, deferrable: boolean): Promise<Outcome<M>> {
    let input: I;
    try {
      input = 'input' in frame ? frame.input : this.#prepare(frame);
    } catch (error) {
      back();
      throw error;
    }
    const t1 = (this.#runStarted = this.#hooks.now());
    try {
      let run: ModelRun<M> | undefined;
      let modelMs: number;
      try {
        run = await this.#hooks.model(input);
      } finally {
        modelMs = this.#hooks.now() - t1;
        this.pace.trip(modelMs, run?.work);
        back();
      }
      const made = run;
      const make = (): M => {
        const t2 = this.#hooks.now();
        const masks = made.masks(modelMs);
        this.pace.masks(this.#hooks.now() - t2);
        this.#last = masks;
        return masks;
      };
      if (!deferrable || !this.#finishLater()) return { masks: make() };
      const masks = await new Promise<M>((resolve) => {
        // Made now, as the deferred call runs (a promise's executor runs at once; a throw rejects it).
        this.#deferred = () => resolve(new Promise<M>((made) => made(make())));
      });
      return { masks };
    } catch (error) {
      // The output keeps flowing on the last good masks; with none yet, the failure is the loop's.
      if (this.#last === null) throw error;
      return { masks: this.#last, failure: error };
    }
  }

  /**
   * A run begun while frames do not wait, back with the model idle for want of a frame and no frame waiting
   * for masks: whether making its masks now would still run when the next frame comes. They are then made
   * once that frame has gone to the model (or the loop changes way, or ends), so that the model is not kept
   * waiting for them; the frame is shown on them.
   */
  #finishLater(): boolean {
    if (this.#waiting || this.#modelCall !== null || this.#awaiting > 0 || this.#ended || this.ending) return false;
    const [finish, interval, last] = [this.pace.masksMs, this.pace.interval, this.pace.lastFrameAt];
    return finish > 0 && interval > 0 && last !== null && this.#hooks.now() + finish > last + interval;
  }

  /** The last run's masks, where they wait for the next frame to go to the model: made now. */
  #finishDeferred(): void {
    const deferred = this.#deferred;
    this.#deferred = null;
    deferred?.();
  }

  /** The frame's network input, drawn now; the loop's own work on it (from its keeping, a copy) told to the pace. */
  #prepare(frame: F): I {
    const t0 = this.#hooks.now() - (this.#keepMs.get(frame) ?? 0);
    const input = this.#hooks.prepare(frame);
    this.pace.input(this.#hooks.now() - t0);
    return input;
  }

  /**
   * The model busy: whether this frame is the last to come before the model is due back (the next one
   * would come after it), so that its input is drawn for the model's next run. While the model's
   * time is not known yet (the warm-up runs), every frame is (the newest replaces the last).
   */
  #lastBeforeModel(): boolean {
    const interval = this.pace.interval;
    const trip = this.pace.tripMs;
    if (trip <= 0 || interval <= 0) return true;
    return this.#runStarted + trip - this.#hooks.now() < interval;
  }

  /** Not waiting: a run's failure is reported by the next frame shown (its frame was shown already). */
  #reportLater(run: Promise<Outcome<M>>): void {
    void run.then((result) => {
      if (result.failure !== undefined) this.#unreported ??= { error: result.failure };
    }, noop);
  }

  /**
   * Not waiting: the frame on the newest masks at once, and to the model too when it is free. Only a frame
   * with no masks of its size yet waits for the model (for the frame at it, then for its own).
   */
  async #latest(frame: F): Promise<Shown<M>> {
    for (;;) {
      const own = this.#modelCall ? null : this.#run(frame, true);
      // The run before's masks, where they waited for this frame to go to the model.
      this.#finishDeferred();
      const last = this.#last !== null && this.#hooks.fits(this.#last, frame) ? this.#last : null;
      if (last !== null) {
        // This frame's own failure is reported by a frame after it.
        if (own) this.#reportLater(own);
        else if (this.#lastBeforeModel()) this.#queued = this.#prepare(frame);
        const unreported = this.#unreported;
        this.#unreported = null;
        return { masks: last, carried: true, ...(unreported ? { failure: unreported.error } : {}) };
      }
      this.#awaiting++;
      try {
        if (own) return { ...(await own), carried: false };
        await this.#modelCall;
      } finally {
        this.#awaiting--;
      }
    }
  }

  /** Shows `frame` on the masks before it once the frame ahead is written; a carried frame it replaces is dropped. */
  #carry(frame: F): void {
    if (this.#carried) this.#drop(this.#carried);
    this.#carried = frame;
    const before = this.#written;
    this.#output(
      frame,
      before.then(() => {
        // Replaced (and dropped) before its turn.
        if (this.#carried !== frame) return undefined;
        this.#carried = null;
        const last = this.ending || this.#last === null || !this.#hooks.fits(this.#last, frame) ? null : this.#last;
        if (last !== null) return this.#hooks.write(frame, { masks: last, carried: true });
        this.#drop(frame);
        return undefined;
      }),
    );
  }

  #drop(frame: F): void {
    this.#release(frame);
    this.#dropped++;
    this.#hooks.dropped?.();
  }

  /** The frame's work (its write): the next frame's output follows it; the frame is released once it settles. */
  #output(frame: F, work: Promise<R | undefined>): void {
    let failure: { error: unknown } | null = null;
    const done = work
      .catch((error: unknown) => {
        failure = { error };
        this.fail(error);
        return undefined;
      })
      .finally(() => this.#release(frame))
      .then((report) => {
        if (failure) this.#hooks.done(frame, undefined, failure.error);
        else this.#hooks.done(frame, report);
      })
      .catch(noop);
    this.#written = done;
    this.#pending = Promise.all([this.#pending, done]).then(noop);
  }

  /** A frame never shown nor dropped: released, and done with. */
  #discard(frame: F): void {
    this.#release(frame);
    this.#hooks.done(frame, undefined);
  }

  #release(frame: F): void {
    if (this.#released.has(frame)) return;
    this.#released.add(frame);
    this.#hooks.release(frame);
  }
}

// What happens to each frame of the live loop, and nothing else: which frame the model takes, which waits
// for it, which is carried or dropped, in what order frames are written, and when frames stop or start
// waiting for their own mask. Each frame's state (FrameState) is moved in one place, along FRAME_MOVES.
// Pure: the model, the writer, the end of a frame and the clock are injected, so every path (streams,
// track, frames) runs the same rules, and Node tests them with fake frames and a fake clock.
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
 * Where a frame is in the loop; FrameScheduler alone moves it on, along FRAME_MOVES, by the rules above
 * its class. A frame is `read` once offered (frames are taken in order). While frames wait for their own
 * mask it goes to the model when the model is free (`segmenting`: it is written on its own masks) or waits
 * for it in the one-frame slot (`waiting`), where a newer frame may take its place: it is then `carried`,
 * shown on the masks before it once the frame ahead is written. While frames do not wait it goes from
 * `read` to `compositing` at once, on the newest masks (a frame with no masks of its size is `waiting` for
 * the run in flight, or `segmenting` for its own). It ends `shown` (written) or `dropped`: `replaced` (a
 * carried frame a newer one replaced before its turn) or `no-masks` (a carried frame whose turn came with
 * no masks of its size, or the loop stopping), both counted in `dropped`; `ended` (the source ended or the
 * loop stopped before it was shown, or the writer wrote nothing); `failed` (the loop failed on it).
 */
export type FrameState =
  | { is: 'read' }
  | { is: 'waiting' }
  | { is: 'segmenting' }
  | { is: 'carried' }
  | { is: 'compositing' }
  | { is: 'shown' }
  | { is: 'dropped'; why: 'replaced' | 'no-masks' | 'ended' }
  | { is: 'dropped'; why: 'failed'; error: unknown };

/** How a frame's life ended. */
export type FrameEnd = Extract<FrameState, { is: 'shown' | 'dropped' }>;

/** The states a frame may move to from each. */
export const FRAME_MOVES = {
  read: ['waiting', 'segmenting', 'compositing', 'dropped'],
  waiting: ['segmenting', 'carried', 'compositing', 'dropped'],
  segmenting: ['compositing', 'dropped'],
  carried: ['compositing', 'dropped'],
  compositing: ['shown', 'dropped'],
  shown: [],
  dropped: [],
} as const satisfies { [S in FrameState['is']]: readonly FrameState['is'][] };

/** `state`, moved to `next`; throws where FRAME_MOVES has no such move. */
export function moveFrame(state: FrameState, next: FrameState): FrameState {
  if (!(FRAME_MOVES[state.is] as readonly string[]).includes(next.is)) throw new Error(`a ${state.is} frame cannot be ${next.is}`);
  return next;
}

/** Whether a frame's end counts in the loop's `dropped` (a frame the loop let go while it ran, not one it stopped or failed on). */
export const countsDropped = (end: FrameEnd): boolean => end.is === 'dropped' && (end.why === 'replaced' || end.why === 'no-masks');

/** What the scheduler calls; `F` is a frame as the path has it, `I` a network input, `M` the masks a model run gives. */
export interface SchedulerHooks<F extends object, I, M> {
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
  /** Composites the frame with `shown` and writes it; false where it wrote nothing (the loop stopped). */
  write(frame: F, shown: Shown<M>): Promise<boolean>;
  /**
   * The frame's life ended (`end`): let go of it. Called once for each frame offered: a frame written or
   * dropped at its turn after the frames before it, one replaced (or not taken) at once.
   */
  done(frame: F, end: FrameEnd): void;
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
 * - **In order**: each frame's write follows the one before it; every frame offered is done with once.
 */
export class FrameScheduler<F extends object, I, M> {
  readonly #hooks: SchedulerHooks<F, I, M>;
  readonly #mode: boolean | 'auto';
  readonly #countGaps: boolean;
  /** The pace of the camera, the model and the loop; a path feeds it what compositing costs (`composite`). */
  readonly pace: MaskPace;
  #waiting: boolean;
  /** Whether the loop takes frames: it runs until stopped from outside or failed (`error`). */
  #state: { is: 'running' } | { is: 'stopped' } | { is: 'failed'; error: unknown } = { is: 'running' };
  /** The model's run in flight (settles, never rejecting, once its masks are made); null once the model is back. */
  #modelCall: Promise<void> | null = null;
  /** The newest frame that came while the model was busy (`waiting`): the model takes it next. */
  #held: Life<F> | null = null;
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
  /** A frame shown on the masks before it once the frame ahead of it is written (at most one is `carried`). */
  #carried: Life<F> | null = null;
  /** The last frame's output (settles once it is written, or dropped, and done with). */
  #written: Promise<void> = Promise.resolve();
  /** Every frame's output, for end(). */
  #pending: Promise<void> = Promise.resolve();
  /** The last good masks. */
  #last: M | null = null;
  /** While frames do not wait: a failed run, for the next frame shown to report. */
  #unreported: { error: unknown } | null = null;
  /** Frames offered and not taken yet; when the last one was taken (ms). */
  #intakes = 0;
  #readyAt = 0;
  #intake: Promise<unknown> = Promise.resolve();
  #lastTimestamp: number | null = null;
  #dropped = 0;

  constructor(hooks: SchedulerHooks<F, I, M>, options: SchedulerOptions) {
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

  /** Frames dropped: by this loop (see `countsDropped`), and (`countGaps`) by the source before this loop saw them. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Whether the loop takes no more frames (stopped, or failed). */
  get ending(): boolean {
    return this.#state.is !== 'running';
  }

  /** Why the loop failed, where it did. */
  get error(): { error: unknown } | null {
    return this.#state.is === 'failed' ? { error: this.#state.error } : null;
  }

  /**
   * A frame came (stamped `timestamp`, µs; `skipped`: the camera's frames its source skipped since the last
   * one offered, which the pace counts, and `countGaps` does not). Resolves once the loop can take the next
   * one: at once while frames wait for their mask, once this one is written while they do not. False where
   * the loop takes no more frames (this one was done with).
   */
  offer(frame: F, timestamp: number, skipped = 0): Promise<boolean> {
    const arrived = this.#hooks.now();
    // How long the loop had nothing to do before this frame came (none while one is being taken).
    const idle = this.#intakes === 0 ? Math.max(0, arrived - this.#readyAt) : 0;
    this.#intakes++;
    const life: Life<F> = { frame, state: { is: 'read' }, keepMs: 0 };
    const taken = this.#intake.then(() => this.#take(life, timestamp, arrived, idle, skipped));
    this.#intake = taken;
    return taken;
  }

  /** Takes no more frames; frames in work finish (a frame still to be written is not written where the writer checks). */
  stop(): void {
    if (this.#state.is === 'running') this.#state = { is: 'stopped' };
    this.#finishDeferred();
  }

  /** Fails the loop from outside (the source failed): no more frames. */
  fail(error: unknown): void {
    if (this.#state.is === 'failed') return;
    this.#state = { is: 'failed', error };
    this.#hooks.failed?.(error);
  }

  /** The source ended: the held frame is dropped (not shown), and what is in work finishes. */
  async end(): Promise<void> {
    this.#ended = true;
    this.#finishDeferred();
    if (this.#held) this.#advance(this.#held, { is: 'dropped', why: 'ended' });
    [this.#held, this.#queued] = [null, null];
    await this.#pending;
  }

  async #take(life: Life<F>, timestamp: number, arrived: number, idle: number, skipped: number): Promise<boolean> {
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
        this.#advance(life, { is: 'dropped', why: 'ended' });
        return false;
      }
      if (!this.#waiting) {
        this.#output(
          life,
          this.#latest(life).then((shown) => this.#write(life, shown)),
        );
        await this.#written;
        return true;
      }
      const t0 = this.#hooks.now();
      this.#hooks.keep(life.frame);
      life.keepMs = this.#hooks.now() - t0;
      if (!this.#modelCall) this.#begin(life);
      else {
        // The frame the model takes next is the newest; the one it replaces is shown on the last masks.
        if (this.#held) {
          this.#carry(this.#held);
          this.pace.carried();
        }
        [this.#held, this.#queued] = [null, null];
        // Drawn before the frame is held: one whose input fails is done with here (below), not held.
        const input = this.#lastBeforeModel() ? this.#prepare(life) : null;
        this.#advance(life, { is: 'waiting' });
        [this.#held, this.#queued] = [life, input];
      }
      return true;
    } catch (error) {
      this.fail(error);
      if (!ended(life)) this.#advance(life, { is: 'dropped', why: 'failed', error });
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
  #begin(life: Life<F>, input: I | null = null): void {
    this.#advance(life, { is: 'segmenting' });
    const outcome = this.#run(input === null ? life : { input });
    const before = this.#written;
    this.#output(
      life,
      outcome.then(async (result) => {
        await before;
        return this.#write(life, { ...result, carried: false });
      }),
    );
  }

  /**
   * The model's run on a frame: its input drawn now, then its masks, or the last good ones with the
   * failure (none yet: the run rejects). When it is back, the held frame goes to the model, before anything
   * waiting on this run (the model runs while this frame is composited).
   */
  #run(frame: Life<F> | { input: I }, deferrable = false): Promise<Outcome<M>> {
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
      if (this.ending) this.#advance(next, { is: 'dropped', why: 'ended' });
      else this.#begin(next, queued);
    } else if (queued !== null && !this.ending && !this.#waiting) this.#reportLater(this.#run({ input: queued }, true));
  }

  /**
   * The run on a frame (or on an input drawn already): its input drawn now, then the model's result; once
   * the model is back (`back`: the next frame goes to it) its masks are made. A failure gives the last good
   * masks with it (none yet: the run rejects).
   */
  async #outcome(frame: Life<F> | { input: I }, back: () => void, deferrable: boolean): Promise<Outcome<M>> {
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
  #prepare(life: Life<F>): I {
    const t0 = this.#hooks.now() - life.keepMs;
    const input = this.#hooks.prepare(life.frame);
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
  async #latest(life: Life<F>): Promise<Shown<M>> {
    for (;;) {
      const own = this.#modelCall ? null : this.#run(life, true);
      // The run before's masks, where they waited for this frame to go to the model.
      this.#finishDeferred();
      const last = this.#last !== null && this.#hooks.fits(this.#last, life.frame) ? this.#last : null;
      if (last !== null) {
        // This frame's own failure is reported by a frame after it.
        if (own) this.#reportLater(own);
        else if (this.#lastBeforeModel()) this.#queued = this.#prepare(life);
        const unreported = this.#unreported;
        this.#unreported = null;
        return { masks: last, carried: true, ...(unreported ? { failure: unreported.error } : {}) };
      }
      this.#awaiting++;
      try {
        if (own) {
          this.#advance(life, { is: 'segmenting' });
          return { ...(await own), carried: false };
        }
        if (life.state.is === 'read') this.#advance(life, { is: 'waiting' });
        await this.#modelCall;
      } finally {
        this.#awaiting--;
      }
    }
  }

  /** Shows a held frame on the masks before it once the frame ahead is written; the carried frame it replaces is dropped. */
  #carry(life: Life<F>): void {
    if (this.#carried) this.#advance(this.#carried, { is: 'dropped', why: 'replaced' });
    this.#advance(life, { is: 'carried' });
    this.#carried = life;
    const before = this.#written;
    this.#output(
      life,
      before.then(() => {
        // Replaced (and dropped) before its turn.
        if (this.#carried !== life) return false;
        this.#carried = null;
        const last = this.ending || this.#last === null || !this.#hooks.fits(this.#last, life.frame) ? null : this.#last;
        if (last !== null) return this.#write(life, { masks: last, carried: true });
        this.#advance(life, { is: 'dropped', why: 'no-masks' });
        return false;
      }),
    );
  }

  /** Composites and writes the frame on `shown`. */
  #write(life: Life<F>, shown: Shown<M>): Promise<boolean> {
    this.#advance(life, { is: 'compositing' });
    return this.#hooks.write(life.frame, shown);
  }

  /** The frame's work, to its write: the next frame's output follows it; the frame is shown, or dropped, once it settles. */
  #output(life: Life<F>, work: Promise<boolean>): void {
    const done = work
      .then(
        (written) => {
          if (!ended(life)) this.#advance(life, written ? { is: 'shown' } : { is: 'dropped', why: 'ended' });
        },
        (error: unknown) => {
          this.fail(error);
          if (!ended(life)) this.#advance(life, { is: 'dropped', why: 'failed', error });
        },
      )
      .catch(noop);
    this.#written = done;
    this.#pending = Promise.all([this.#pending, done]).then(noop);
  }

  /** The one place a frame moves: to `next` (along FRAME_MOVES); a frame that ends is counted and done with. */
  #advance(life: Life<F>, next: FrameState): void {
    const ends = !ended(life) && (next.is === 'shown' || next.is === 'dropped');
    try {
      life.state = moveFrame(life.state, next);
    } finally {
      // A frame that ends is let go even where the move was a slip (which then throws): a camera frame left
      // open would stall the camera.
      if (ends) {
        life.state = next;
        if (countsDropped(next)) this.#dropped++;
        this.#hooks.done(life.frame, next);
      }
    }
  }
}

/** A frame offered, and where it is in the loop. */
interface Life<F> {
  readonly frame: F;
  state: FrameState;
  /** What keeping it cost (ms), counted in the loop's own work on it. */
  keepMs: number;
}

/** Whether a frame's life has ended (shown or dropped). */
const ended = ({ state }: Life<object>): boolean => state.is === 'shown' || state.is === 'dropped';

// How the live loop chooses, with waitForMask 'auto', whether frames wait for their own mask.

/**
 * `waitForMask: 'auto'`: frames wait for their own mask while the pipeline keeps pace with the camera.
 * Waiting, the model takes the next frame as soon as it gives back a result, while the loop makes that
 * result's masks and composites its frame: a frame's period is the longer of the model's round trip and
 * the loop's own work on a frame the model takes (its input and guide drawn, its masks made, then
 * compositing and writing it), the two running at once. The model's round trip is its own work (in its
 * thread, where the model tells it) and the least of what the round trips took besides over the last 16:
 * the messages there and back. More than that is the loop being busy when a result came, which is what
 * not waiting does (every frame is composited as it comes) and waiting does not (the loop works on a
 * frame once its result is back): judged by round trips measured while not waiting, frames would never
 * wait again. Frames stop waiting once the period is over the camera's frame interval (frames would be
 * carried, or left unread by a busy loop), and wait again once it is under 0.8 of it: the period counts
 * neither the browser's own work on the same cores nor the copies of frames that get no mask, and a
 * 1280 × 720 camera on 2 cores, 0.93 of the interval by it, left a sixth of its frames unread while frames
 * waited. The camera's interval (see `interval`) is its frame rate's, or the time between its frames as
 * measured where that is longer (a camera in low light gives fewer frames than it says). All are moving
 * averages over about 8 samples; the first two round trips (the model's warm-up) are not counted, and 10
 * frames pass between two changes. Frames also stop waiting where, whatever the period says, the pipeline
 * does not keep pace: a quarter of the frames are carried (shown on an earlier frame's mask, because the
 * model had a newer frame before it was free), over about the last 32; the period was wrong there, so
 * twice as many frames pass before they wait again each time that happens (up to 640: about 10 s at 60
 * frames/s).
 */
export class MaskPace {
  /** The camera's frame interval (ms) from its frame rate; 0 where unknown. */
  readonly #camera: number;
  #arrival = 0;
  /** The camera's interval as measured (see `interval`), and from how many samples. */
  #free = 0;
  #frees = 0;
  #last: number | null = null;
  /** Whether frames waited when the last one came. */
  #lastWaiting = true;
  /** The model's round trip; its own work on a run, where it tells it, and the round trips' time besides that over the last runs. */
  readonly #trip = new RunAverage();
  readonly #work = new RunAverage();
  readonly #besides: number[] = [];
  #input = 0;
  readonly #masks = new RunAverage();
  #composite = 0;
  #since = 0;
  /** Frames that pass between two changes (doubled each time carried frames stop waiting). */
  #hold = MIN_HOLD;
  #waiting = true;
  /** While frames wait: the share of them carried, a moving average over about 32 frames (from the warm-up's end). */
  #carried = 0;

  constructor(frameRate?: number) {
    this.#camera = frameRate && frameRate > 0 ? 1000 / frameRate : 0;
  }

  /**
   * A frame came in at `now` (ms). `waiting`: whether frames wait for their mask now (by default, as chosen
   * last); `idle`: how long the loop had been waiting for this frame with nothing to do, ms; `count`: how
   * many of the camera's frames came since the last one (the frames path's page skips frames while two are
   * in flight).
   */
  frame(now: number, waiting = this.#waiting, idle = 0, count = 1): void {
    if (this.#last !== null) {
      const gap = now - this.#last;
      this.#arrival = average(this.#arrival, gap / Math.max(1, count));
      // The camera's own interval: the loop was idle for most of it, and frames did not wait.
      if (!waiting && !this.#lastWaiting && idle >= gap / 2) [this.#free, this.#frees] = [average(this.#free, gap), this.#frees + 1];
    }
    [this.#last, this.#lastWaiting] = [now, waiting];
    this.#since++;
    if (waiting) this.#carried -= this.#carried / CARRIED_WINDOW;
  }

  /**
   * While frames wait, `count` of them got no mask of their own: carried (a newer frame took its place at
   * the model), or left unread by a loop too busy to read them (the source discarded them).
   */
  carried(count = 1): void {
    if (this.#trip.warm) this.#carried += count / CARRIED_WINDOW;
  }

  /** When the last frame came (ms), as `frame` was told; null before the first. */
  get lastFrameAt(): number | null {
    return this.#last;
  }

  /**
   * The camera's frame interval, ms (0 while unknown): its frame rate's, or longer where its frames came
   * further apart (a camera in low light gives fewer frames than it says, never more). Measured between
   * frames that the loop was idle for most of the time before (frames a busy loop reads late say nothing of
   * the camera), and only while frames do not wait: frames held for the model hold back a camera's next
   * ones where they are not copied at once (Chromium's capture gave half its frames with two held 50 ms).
   * Where the track says no frame rate and no frame came so yet, the time between frames as they come.
   */
  get interval(): number {
    return Math.max(this.#camera, this.#frees >= 8 ? this.#free : 0) || this.#arrival;
  }

  /**
   * The model's round trip took `ms`: from the loop sending it a frame's input to the result back, without
   * making its masks; `work`, where the model tells it, is its own time on the run (in its thread: the
   * network, its output).
   */
  trip(ms: number, work?: number): void {
    this.#trip.add(ms);
    if (work === undefined) return;
    this.#work.add(work);
    this.#besides.push(Math.max(0, ms - work));
    if (this.#besides.length > BESIDES_WINDOW) this.#besides.shift();
  }

  /** The model's round trip (ms; 0 during the warm-up). */
  get tripMs(): number {
    return this.#trip.ms;
  }

  /** The loop drew a frame's network input and guide for the model in `ms`. */
  input(ms: number): void {
    this.#input = average(this.#input, ms);
  }

  /** The loop made a run's masks (smoothing, refinement) in `ms`. */
  masks(ms: number): void {
    this.#masks.add(ms);
  }

  /** How long the loop takes to make a run's masks (ms; 0 during the warm-up). */
  get masksMs(): number {
    return this.#masks.ms;
  }

  /** The loop composited and wrote a frame on new masks in `ms`. */
  composite(ms: number): void {
    this.#composite = average(this.#composite, ms);
  }

  /** Whether frames wait for their mask now. */
  choose(): boolean {
    const interval = this.interval;
    if (this.#since >= this.#hold && interval > 0 && this.#trip.ms > 0) {
      const model = this.#work.ms > 0 && this.#besides.length > 0 ? this.#work.ms + Math.min(...this.#besides) : this.#trip.ms;
      const period = Math.max(model, this.#input + this.#masks.ms + this.#composite);
      const carried = this.#waiting && this.#carried > CARRIED_MAX;
      const waiting = this.#waiting ? period <= interval && !carried : period < RETURN * interval;
      if (waiting !== this.#waiting) {
        if (carried) this.#hold = Math.min(MAX_HOLD, 2 * this.#hold);
        [this.#waiting, this.#since, this.#carried] = [waiting, 0, 0];
      }
    }
    return this.#waiting;
  }
}

/** The frames over which the carried share is averaged, and the share over which frames stop waiting. */
const CARRIED_WINDOW = 32;
const CARRIED_MAX = 0.25;
/** The share of the camera's interval under which the period must be for frames to wait again. */
const RETURN = 0.8;
/** The frames between two changes: at first, and at most. */
const MIN_HOLD = 10;
const MAX_HOLD = 640;
/** The round trips over which the least time besides the model's work is taken. */
const BESIDES_WINDOW = 16;

/**
 * A run's time (ms) as a moving average (`average`), the first two runs (a model's warm-up, many times
 * slower) left out: 0 until they are past.
 */
export class RunAverage {
  #runs = 0;
  #ms = 0;

  /** The average (ms); 0 during the warm-up. */
  get ms(): number {
    return this.#ms;
  }

  /** Whether the warm-up runs are past. */
  get warm(): boolean {
    return this.#runs > 2;
  }

  add(ms: number): void {
    if (++this.#runs > 2) this.#ms = average(this.#ms, ms);
  }
}

/** A moving average over about 8 samples (the first sample starts it). */
const average = (mean: number, sample: number) => (mean === 0 ? sample : mean + (sample - mean) / 8);

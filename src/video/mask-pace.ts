// How the live loop chooses, with waitForMask 'auto', whether frames wait for their own mask.

/**
 * `waitForMask: 'auto'`: frames wait for their own mask while the pipeline keeps pace with the camera.
 * Waiting, a frame's period is the longer of the model's round trip and the loop's own work on a frame
 * the model takes (its input and guide drawn, then compositing it on new masks), the two running at once.
 * Frames stop waiting once that is over the camera's frame interval by a tenth (frames would be carried or
 * dropped), and wait again once it is under 0.9 of it: measured while frames do not wait it is the longer
 * (every frame is composited meanwhile), so the two ways do not take turns. The camera's interval (see
 * `interval`) is its frame rate's, or the time between its frames as measured where that is longer (a
 * camera in low light gives fewer frames than it says). All are moving averages
 * over about 8 samples; the first two round trips (the model's warm-up) are not counted, and 10 frames
 * pass between two changes. Frames also stop waiting where, measured or not, the pipeline does not keep
 * pace: a quarter of the frames are carried (shown on an earlier frame's mask, because the model had a
 * newer frame before it was free), over about the last 32.
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
  /** The model's round trip. */
  readonly #trip = new RunAverage();
  #input = 0;
  #composite = 0;
  #since = 0;
  #waiting = true;
  /** While frames wait: the share of them carried, a moving average over about 32 frames (from the warm-up's end). */
  #carried = 0;

  constructor(frameRate?: number) {
    this.#camera = frameRate && frameRate > 0 ? 1000 / frameRate : 0;
  }

  /**
   * A frame came in at `now` (ms). `waiting`: whether frames wait for their mask now (by default, as chosen
   * last); `idle`: how long the loop had been waiting for this frame with nothing to do, ms; `count`: how
   * many of the camera's frames came since the last one (the `main-thread` page skips frames while two are
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

  /** While frames wait, one was carried: a newer frame took its place at the model. */
  carried(): void {
    if (this.#trip.warm) this.#carried += 1 / CARRIED_WINDOW;
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

  /** A model round trip took `ms`. */
  trip(ms: number): void {
    this.#trip.add(ms);
  }

  /** The loop drew a frame's network input and guide for the model in `ms`. */
  input(ms: number): void {
    this.#input = average(this.#input, ms);
  }

  /** The loop composited a frame on new masks in `ms`. */
  composite(ms: number): void {
    this.#composite = average(this.#composite, ms);
  }

  /** Whether frames wait for their mask now. */
  choose(): boolean {
    const interval = this.interval;
    if (this.#since >= 10 && interval > 0 && this.#trip.ms > 0) {
      const period = Math.max(this.#trip.ms, this.#input + this.#composite);
      const waiting = this.#waiting ? period <= 1.1 * interval && this.#carried <= CARRIED_MAX : period < 0.9 * interval;
      if (waiting !== this.#waiting) [this.#waiting, this.#since, this.#carried] = [waiting, 0, 0];
    }
    return this.#waiting;
  }
}

/** The frames over which the carried share is averaged, and the share over which frames stop waiting. */
const CARRIED_WINDOW = 32;
const CARRIED_MAX = 0.25;

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

// How the live loop chooses, with waitForMask 'auto', whether frames wait for their own mask.

/**
 * `waitForMask: 'auto'`: frames wait for their own mask while the pipeline keeps pace with the camera.
 * Waiting, a frame's period is the longer of the model's round trip and the loop's own work on a frame
 * the model takes (its input and guide drawn, then compositing it on new masks), the two running at once.
 * Frames stop waiting once that is over the camera's frame interval by a tenth (frames would be carried or
 * dropped), and wait again once it is under 0.9 of it: measured while frames do not wait it is the longer
 * (every frame is composited meanwhile), so the two ways do not take turns. The camera's interval is its
 * frame rate where the track gives one, else the time between frames as they come (which a busy loop
 * stretches). All are moving averages over about 8 samples; the first two round trips (the model's
 * warm-up) are not counted, and 10 frames pass between two changes.
 */
export class MaskPace {
  /** The camera's frame interval (ms) from its frame rate; 0 where unknown. */
  readonly #camera: number;
  #arrival = 0;
  #last: number | null = null;
  #trip = 0;
  #trips = 0;
  #input = 0;
  #composite = 0;
  #since = 0;
  #waiting = true;

  constructor(frameRate?: number) {
    this.#camera = frameRate && frameRate > 0 ? 1000 / frameRate : 0;
  }

  /** A frame came in at `now` (ms). */
  frame(now: number): void {
    if (this.#last !== null) this.#arrival = average(this.#arrival, now - this.#last);
    this.#last = now;
    this.#since++;
  }

  /** A model round trip took `ms`. */
  trip(ms: number): void {
    if (++this.#trips > 2) this.#trip = average(this.#trip, ms);
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
    const interval = this.#camera || this.#arrival;
    if (this.#since >= 10 && interval > 0 && this.#trip > 0) {
      const period = Math.max(this.#trip, this.#input + this.#composite);
      const waiting = this.#waiting ? period <= 1.1 * interval : period < 0.9 * interval;
      if (waiting !== this.#waiting) [this.#waiting, this.#since] = [waiting, 0];
    }
    return this.#waiting;
  }
}

const average = (mean: number, sample: number) => (mean === 0 ? sample : mean + (sample - mean) / 8);

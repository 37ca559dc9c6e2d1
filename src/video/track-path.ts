// The track path (Safari 18, the spec's way; `stats.path` 'worker'): a copy of the track goes to the loop's
// worker, which reads it and writes the generator whose track it made ahead. A new model worker takes over there, on the same output; the
// output lives in the loop's worker, so if that worker dies, the output ends with an error.
import { BackendError } from '../errors/index.js';
import { watchInput, type InputPath, type PathContext } from './input-path.js';

export class TrackPath implements InputPath {
  readonly kind = 'track';
  readonly output: MediaStreamTrack;
  readonly #track: MediaStreamTrack;
  readonly #outputId: number;
  readonly #context: PathContext;
  #unwatch: (() => void) | null = null;
  /** Whether the loop in the loop's worker is still to be stopped (its output, the generator there, with it). */
  #running = true;

  constructor(track: MediaStreamTrack, output: { id: number; track: MediaStreamTrack }, context: PathContext) {
    this.output = output.track;
    this.#outputId = output.id;
    this.#track = track;
    this.#context = context;
  }

  start(): void {
    const context = this.#context;
    // The loop's worker reads a copy of the input: the page watches the caller's.
    this.#unwatch ??= watchInput(this.#track, () => {
      context.supervisor.inputEnded();
      context.ended();
    });
    const generation = context.supervisor.nextGeneration();
    // A copy: a track sent to a worker ends on the page, and the caller's is the caller's.
    const copy = this.#track.clone();
    const frameRate = this.#track.getSettings().frameRate;
    const input = { kind: 'track', track: copy, output: this.#outputId, ...(frameRate ? { frameRate } : {}) } as const;
    context.supervisor
      .startLoop(
        generation,
        input,
        [copy as unknown as Transferable],
        () => undefined,
        () => {
          context.ended(new BackendError('WORKER_CRASHED', "the frame loop's worker died, and the output track it wrote with it"), true);
          // A new loop worker, with a generator made ahead, for the next process().
          void context.supervisor.makeSpare();
        },
      )
      .catch(() => undefined);
  }

  restart(): Promise<void> {
    this.start();
    return Promise.resolve();
  }

  /** The watch on the input stopped, the loop and its generator in the loop's worker stopped, the output stopped. */
  async stop(): Promise<void> {
    const stopping = this.#running ? this.#context.supervisor.stopTrackLoop() : null;
    this.#running = false;
    this.#unwatch?.();
    this.output.stop();
    const open = await stopping;
    if (open !== null && open !== undefined) this.#context.openFrames(open);
  }
}

// The track path (Safari 18, the spec's way; `stats.path` 'worker'): a copy of the track goes to the loop's
// worker, which reads it and writes the generator whose track it made ahead. A new model worker takes over
// there, on the same output; the output lives in the loop's worker, so if that worker dies, the output ends
// with an error.
import { watchInput, type InputPath, type PathContext } from './input-path.js';
import type { VideoInput } from './protocol.js';

export class TrackPath implements InputPath {
  readonly kind = 'track';
  readonly track: MediaStreamTrack;
  /** The track of the generator made ahead in the loop's worker. */
  readonly output: MediaStreamTrack;
  readonly outputInLoopWorker = true;
  readonly #outputId: number;
  readonly #context: PathContext;
  #unwatch: (() => void) | null = null;
  /** Whether the loop in the loop's worker is still to be stopped (its output, the generator there, with it). */
  #running = true;

  constructor(track: MediaStreamTrack, output: { id: number; track: MediaStreamTrack }, context: PathContext) {
    this.output = output.track;
    this.#outputId = output.id;
    this.track = track;
    this.#context = context;
  }

  /** A copy of the input for the loop's worker, which writes the generator there; the page watches the caller's. */
  connect(): { input: VideoInput; transfer: Transferable[] } {
    this.#unwatch ??= watchInput(this.track, () => this.#context.loop.tell({ on: 'input-ended' }));
    // A copy: a track sent to a worker ends on the page, and the caller's is the caller's.
    const copy = this.track.clone();
    const frameRate = this.track.getSettings().frameRate;
    const input = { kind: 'track', track: copy, output: this.#outputId, ...(frameRate ? { frameRate } : {}) } as const;
    return { input, transfer: [copy] };
  }

  /** The watch on the input stopped, the loop and its generator in the loop's worker stopped, the output stopped. */
  async stop(): Promise<void> {
    const stopping = this.#running ? this.#context.loop.stopTrackLoop() : null;
    this.#running = false;
    this.#unwatch?.();
    this.output.stop();
    const open = await stopping;
    if (open !== null && open !== undefined) this.#context.stats.openFrames = open;
  }
}

// The streams path (Chromium; `stats.path` 'worker'): the page's MediaStreamTrackProcessor and
// MediaStreamTrackGenerator hand their streams to the loop's worker, which writes its frames to a relay whose
// other end the page pipes into the generator, so that a new worker (after a crash or a fallback) can take
// over the same output track.
import type { InputPath } from './input-path.js';
import type { VideoInput } from './protocol.js';

// Chromium's track generator, which the page makes (its writable goes to the worker).
interface GeneratorConstructor {
  new (init: { kind: 'video' }): MediaStreamTrack & { writable: WritableStream<VideoFrame> };
}
interface ProcessorConstructor {
  new (init: { track: MediaStreamTrack }): { readable: ReadableStream<VideoFrame> };
}
const page = globalThis as unknown as {
  MediaStreamTrackGenerator?: GeneratorConstructor;
  MediaStreamTrackProcessor?: ProcessorConstructor;
};

/** Whether the page has Chromium's track processor and generator. */
export const pageHasGenerator = (): boolean => Boolean(page.MediaStreamTrackGenerator && page.MediaStreamTrackProcessor);

export class StreamsPath implements InputPath {
  readonly kind = 'streams';
  readonly track: MediaStreamTrack;
  /** The page's generator, which a new loop's relay writes. */
  readonly output: MediaStreamTrack;
  readonly outputInLoopWorker = false;
  /** The generator's writable, fed by a relay from the loop's worker (null once the output ended). */
  #sink: WritableStream<VideoFrame> | null;
  /** Stops the current loop's relay; resolves once the generator's writable is free. */
  #detach: (() => Promise<void>) | null = null;

  constructor(track: MediaStreamTrack) {
    const generator = new page.MediaStreamTrackGenerator!({ kind: 'video' });
    this.output = generator;
    this.#sink = generator.writable;
    this.track = track;
  }

  /** A track processor's stream of the input, and a relay piped into the generator. */
  connect(): { input: VideoInput; transfer: Transferable[] } {
    const { readable } = new page.MediaStreamTrackProcessor!({ track: this.track });
    const relay = new TransformStream<VideoFrame, VideoFrame>();
    const unpipe = new AbortController();
    // Not closed with the relay: a replaced worker's loop closes its relay, and the output goes on.
    const piped = relay.readable
      .pipeTo(this.#sink!, { preventClose: true, preventAbort: true, preventCancel: true, signal: unpipe.signal })
      .catch(() => undefined);
    this.#detach = () => {
      unpipe.abort();
      return piped;
    };
    const input = { kind: 'streams', readable, writable: relay.writable, frameRate: this.track.getSettings().frameRate } as const;
    return { input, transfer: [readable, relay.writable] };
  }

  /** The last loop's relay unpiped. */
  async detach(): Promise<void> {
    await this.#detach?.();
  }

  /** The relay unpiped, the generator's writable closed (its readers see the end), the output stopped. */
  async stop(): Promise<void> {
    const [detach, sink] = [this.#detach, this.#sink];
    this.#detach = null;
    this.#sink = null;
    const finished = (async () => {
      await detach?.();
      await sink?.close().catch(() => undefined);
    })();
    this.output.stop();
    await finished;
  }
}

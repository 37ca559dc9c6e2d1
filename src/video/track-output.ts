// The track path's input and output (Safari 18, and any engine whose workers have MediaStreamTrackProcessor and
// VideoTrackGenerator): the camera track itself comes to the loop's worker, which reads it with a track
// processor and writes the effect to a track generator, both made here. The page has neither, so the
// generator is made ahead and its track sent to the page, for process() to return at once.

interface TrackGenerator {
  readonly track: MediaStreamTrack;
  readonly writable: WritableStream<VideoFrame>;
}
const scope = globalThis as unknown as {
  VideoTrackGenerator?: new () => TrackGenerator;
  MediaStreamTrackProcessor?: new (init: { track: MediaStreamTrack }) => { readable: ReadableStream<VideoFrame> };
};

export class TrackOutput {
  /** The generator's track, for the page (transferred there). */
  readonly track: MediaStreamTrack;
  readonly #writer: WritableStreamDefaultWriter<VideoFrame>;

  private constructor(generator: TrackGenerator) {
    this.track = generator.track;
    this.#writer = generator.writable.getWriter();
  }

  /** A generator in this worker; null where the worker has no track processor or generator. */
  static create(): TrackOutput | null {
    const { VideoTrackGenerator, MediaStreamTrackProcessor } = scope;
    if (typeof VideoTrackGenerator !== 'function' || typeof MediaStreamTrackProcessor !== 'function') return null;
    return new TrackOutput(new VideoTrackGenerator());
  }

  /**
   * One loop's streams: `input`'s frames, and a writable into the generator. The loop may close that
   * writable: the output goes on, for the loop that takes over after the model's worker was replaced.
   */
  streams(input: MediaStreamTrack): { readable: ReadableStream<VideoFrame>; writable: WritableStream<VideoFrame> } {
    const { readable } = new scope.MediaStreamTrackProcessor!({ track: input });
    const writer = this.#writer;
    // Written straight to the generator, which takes (and closes) the frame: a relay in this worker would
    // pass the frame itself on, and the loop closes its frame once the write is done.
    const writable = new WritableStream<VideoFrame>({ write: (frame) => writer.write(frame) });
    return { readable, writable };
  }

  /** Ends the output track. */
  async close(): Promise<void> {
    await this.#writer.close().catch(() => undefined);
  }
}

// What tests reach inside a video effect, kept off its public class: a registry by effect, filled as each
// is made, that only the source tree's tests import (the package's entries do not export it).

/** A video effect's internals. */
export interface VideoInternals {
  /** Makes the frame loop's own worker die (as a worker the browser ended would); false where the loop has none. */
  crashLoopWorker(): Promise<boolean>;
}

const registry = new WeakMap<object, VideoInternals>();

export function registerVideoInternals(effect: object, internals: VideoInternals): void {
  registry.set(effect, internals);
}

/**
 * Test hook: makes `effect`'s frame loop worker die (no answer, ever); false where the loop has no worker
 * of its own. Only the worker of the source tree plays it; the packaged worker has no fault injection.
 */
export function crashLoopWorker(effect: object): Promise<boolean> {
  const internals = registry.get(effect);
  if (!internals) throw new Error('not a video effect');
  return internals.crashLoopWorker();
}

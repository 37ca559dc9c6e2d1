// What tests reach inside a video effect, kept off its public class: a registry by effect, filled as each
// is made, that only the source tree's tests import (the package's entries do not export it).
import type { CompanionWorker } from '../runtime/worker-backend.js';

/** A video effect's internals. */
export interface VideoInternals {
  /** The frame loop's own worker, where it has one now. */
  loopWorker(): CompanionWorker | null;
}

const registry = new WeakMap<object, VideoInternals>();

export function registerVideoInternals(effect: object, internals: VideoInternals): void {
  registry.set(effect, internals);
}

/**
 * Test hook: makes `effect`'s frame loop worker die (no answer, ever), as a worker the browser ended
 * would; false where the loop has no worker of its own. Only the worker of the source tree plays it; the
 * packaged worker has no fault injection.
 */
export async function crashLoopWorker(effect: object): Promise<boolean> {
  const internals = registry.get(effect);
  if (!internals) throw new Error('not a video effect');
  const loop = internals.loopWorker();
  if (!loop) return false;
  await loop.remote.injectFault('crash');
  // The armed crash plays at the next ping; the guard lets go of the call once the worker is gone.
  void loop.guard(loop.remote.ping()).catch(() => undefined);
  return true;
}

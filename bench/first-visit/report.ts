// What every first-visit page publishes for bench/run/first-visit.ts: the time from navigation to the
// first mask (class ids at the image's size: 1 = person) and the mask itself, or the error.
export interface FirstMask {
  /** ms since the navigation started (performance.timeOrigin). */
  ms: number;
  /** When the runtime and the model were ready (the segmenter made), ms since the navigation started. */
  ready: number;
  /** edgeseg: the first call's stages (`lastTimings`), ms. */
  stages?: Record<string, number>;
  width: number;
  height: number;
  ids: number[];
}

export type FirstVisitOutcome = FirstMask | { error: string };

export const query = new URLSearchParams(location.search);

/**
 * Runs the page's whole path, from nothing to a mask, and publishes the outcome on `window.firstMask`;
 * the path calls `ready()` once its runtime and model are loaded.
 */
export function publish(path: (ready: () => void) => Promise<{ ids: Uint8Array; width: number; height: number }>): void {
  let ready = NaN;
  path(() => (ready = performance.now())).then(
    ({ ids, width, height }) => finish({ ms: performance.now(), ready, width, height, ids: Array.from(ids) }),
    (error: unknown) => finish({ error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }),
  );
}

function finish(outcome: FirstVisitOutcome) {
  (window as unknown as { firstMask: FirstVisitOutcome }).firstMask = outcome;
}

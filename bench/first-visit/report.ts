// What every first-visit page publishes for bench/run/first-visit.ts: the time from navigation to the
// first mask (class ids at the image's size: 1 = person) and the mask itself, or the error.
export interface FirstMask {
  /** ms since the navigation started (performance.timeOrigin). */
  ms: number;
  width: number;
  height: number;
  ids: number[];
}

export type FirstVisitOutcome = FirstMask | { error: string };

export const query = new URLSearchParams(location.search);

/** Runs the page's whole path, from nothing to a mask, and publishes the outcome on `window.firstMask`. */
export function publish(path: () => Promise<{ ids: Uint8Array; width: number; height: number }>): void {
  path().then(
    ({ ids, width, height }) => finish({ ms: performance.now(), width, height, ids: Array.from(ids) }),
    (error: unknown) => finish({ error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) }),
  );
}

function finish(outcome: FirstVisitOutcome) {
  (window as unknown as { firstMask: FirstVisitOutcome }).firstMask = outcome;
}

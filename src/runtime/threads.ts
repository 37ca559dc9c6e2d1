// WASM thread count in browsers: threads need cross-origin isolation (SharedArrayBuffer).

export interface ThreadPlan {
  numThreads: number;
  /** Set when the page's lack of isolation chose one thread: the fallback log says why. */
  notIsolated: string | null;
}

export interface ThreadInputs {
  /** `crossOriginIsolated` of the page. */
  isolated: boolean;
  /** `navigator.hardwareConcurrency`, where the browser tells it. */
  cores: number | undefined;
  /** The caller's `numThreads`, if given: it is used as is. */
  requested: number | undefined;
  /** Whether a local backend (webgpu, wasm) is among those to try; the note concerns only them. */
  local: boolean;
}

/** Half the cores, at most 4, when cross-origin isolated; 1 otherwise, with a note that says why. */
export function planThreads({ isolated, cores, requested, local }: ThreadInputs): ThreadPlan {
  if (requested !== undefined) return { numThreads: requested, notIsolated: null };
  if (!isolated) {
    return {
      numThreads: 1,
      notIsolated: local ? 'the page is not cross-origin isolated (COOP/COEP): WASM runs on one thread' : null,
    };
  }
  return { numThreads: Math.min(4, Math.max(1, Math.floor((cores ?? 2) / 2))), notIsolated: null };
}

/** The plan for this page. */
export function browserThreadPlan(requested: number | undefined, local: boolean): ThreadPlan {
  return planThreads({ isolated: globalThis.crossOriginIsolated === true, cores: globalThis.navigator?.hardwareConcurrency, requested, local });
}

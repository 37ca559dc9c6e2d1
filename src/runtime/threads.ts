// WASM thread count in browsers: threads need cross-origin isolation and SharedArrayBuffer.

export interface ThreadPlan {
  numThreads: number;
  /** Set when the page or the browser chose one thread: the fallback log says why. */
  oneThread: { code: 'NOT_ISOLATED' | 'NO_SHARED_MEMORY'; message: string } | null;
}

export interface ThreadInputs {
  /** `crossOriginIsolated` of the page. */
  isolated: boolean;
  /** Whether the browser has SharedArrayBuffer (WebKitGTK lacks it even on an isolated page). */
  sharedMemory: boolean;
  /** `navigator.hardwareConcurrency`, where the browser tells it. */
  cores: number | undefined;
  /** The caller's `numThreads`, if given: used as is where threads can run (one thread always can). */
  requested: number | undefined;
  /** Whether a local backend (webgpu, wasm) is among those to try; the note concerns only them. */
  local: boolean;
}

/**
 * The caller's count, or half the cores (at most 4), when threads can run; 1 otherwise, with a note that
 * says why, also when the caller asked for more (onnxruntime-web would run one thread and say nothing).
 */
export function planThreads({ isolated, sharedMemory, cores, requested, local }: ThreadInputs): ThreadPlan {
  if (requested !== undefined && (requested <= 1 || (isolated && sharedMemory))) return { numThreads: requested, oneThread: null };
  if (!isolated || !sharedMemory) {
    const oneThread = !isolated
      ? { code: 'NOT_ISOLATED' as const, message: 'the page is not cross-origin isolated (COOP/COEP): WASM runs on one thread' }
      : {
          code: 'NO_SHARED_MEMORY' as const,
          message: 'this browser has no SharedArrayBuffer, even on this cross-origin isolated page: WASM runs on one thread',
        };
    return { numThreads: 1, oneThread: local ? oneThread : null };
  }
  return { numThreads: Math.min(4, Math.max(1, Math.floor((cores ?? 2) / 2))), oneThread: null };
}

/** The plan for this page. */
export function browserThreadPlan(requested: number | undefined, local: boolean): ThreadPlan {
  return planThreads({
    isolated: globalThis.crossOriginIsolated === true,
    sharedMemory: typeof SharedArrayBuffer === 'function',
    cores: globalThis.navigator?.hardwareConcurrency,
    requested,
    local,
  });
}

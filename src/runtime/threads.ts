// WASM thread count in browsers: threads need cross-origin isolation (SharedArrayBuffer).

/** Half the cores, at most 4, when cross-origin isolated; 1 otherwise. */
export function defaultBrowserThreads(): number {
  if (!globalThis.crossOriginIsolated) return 1;
  const cores = globalThis.navigator?.hardwareConcurrency ?? 2;
  return Math.min(4, Math.max(1, Math.floor(cores / 2)));
}

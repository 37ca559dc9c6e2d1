// onnxruntime-web's WASM binary, asked for while its module still loads: the request no longer waits for
// the module (one round trip on a visit, a 304 revalidation on a return visit), and onnxruntime-web still
// compiles it as it streams in (WebAssembly.instantiateStreaming on the response), with the engine's
// compiled-code cache, as when it fetches the binary itself.

/**
 * Fetches `url` now, and answers the worker's next `fetch` of exactly that URL (onnxruntime-web's own, as it
 * starts) with this response instead of a second request. Call the returned function once onnxruntime-web
 * has started (or failed): it puts the worker's `fetch` back if the response was never asked for.
 */
export function prefetchBinary(url: string): () => void {
  const scope = globalThis as { fetch: typeof fetch };
  const own = scope.fetch;
  const early = own(url, { credentials: 'same-origin' });
  // A failure is onnxruntime-web's to meet (and edgeseg's file check's to explain), when it asks.
  early.catch(() => undefined);
  const restore = () => {
    if (scope.fetch === handOver) scope.fetch = own;
  };
  const handOver: typeof fetch = (input, init) => {
    const asked = input instanceof Request ? input.url : String(input);
    if (asked !== url || (init?.method ?? 'GET') !== 'GET') return own(input, init);
    restore();
    return early;
  };
  scope.fetch = handOver;
  return restore;
}

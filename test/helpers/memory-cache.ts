// A PackageCache in memory, for tests that look at what was cached or seed it with a bad entry.
import type { PackageCache } from '../../src/model/index.js';

export function memoryCache(entries: Iterable<[string, Uint8Array]> = []): PackageCache & { store: Map<string, Uint8Array> } {
  const store = new Map(entries);
  return {
    store,
    get: (url) => Promise.resolve(store.get(url) ?? null),
    put: (url, bytes) => {
      store.set(url, bytes);
      return Promise.resolve();
    },
  };
}

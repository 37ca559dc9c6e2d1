// Where downloaded package files are kept so that a second start works offline.

/** A store of downloaded files by URL: Cache Storage in the browser, a directory in Node. */
export interface PackageCache {
  get(url: string): Promise<Uint8Array | null>;
  put(url: string, bytes: Uint8Array): Promise<void>;
}

/** Cache Storage (browsers, workers). Entries are keyed by the URL without its query (no API keys). */
export function cacheStoragePackageCache(name = 'edgeseg-models-v1'): PackageCache | null {
  if (typeof caches === 'undefined') return null;
  const key = (url: string) => {
    const u = new URL(url, 'http://localhost/');
    u.search = '';
    return u.toString();
  };
  return {
    async get(url) {
      const hit = await (await caches.open(name)).match(key(url));
      return hit ? new Uint8Array(await hit.arrayBuffer()) : null;
    },
    async put(url, bytes) {
      await (await caches.open(name)).put(key(url), new Response(bytes as BodyInit));
    },
  };
}

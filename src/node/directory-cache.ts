// A PackageCache on disk, for packages Node downloads by URL: the second start works offline.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { PackageCache } from '../model/index.js';

export function defaultCacheDir(): string {
  return process.env.EDGESEG_CACHE_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'edgeseg');
}

export function directoryPackageCache(dir = defaultCacheDir()): PackageCache {
  // Keyed by the URL without its query, which may hold an API key.
  const path = (url: string) => join(dir, createHash('sha256').update(url.split('?')[0]!).digest('hex'));
  return {
    async get(url) {
      try {
        return new Uint8Array(await readFile(path(url)));
      } catch {
        return null;
      }
    },
    async put(url, bytes) {
      await mkdir(dir, { recursive: true });
      const target = path(url);
      const temp = `${target}.${process.pid}.tmp`;
      await writeFile(temp, bytes);
      await rename(temp, target);
    },
  };
}

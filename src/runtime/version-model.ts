// A platform version's model package, found through the `ort` route the platform's own inference server
// uses. The route's answer is kept beside the model files, so that a second start works offline.
import { ModelPackageError } from '../errors/index.js';
import { cacheStoragePackageCache, type PackageCache } from '../model/index.js';
import type { PlatformClient } from '../platform/platform-client.js';
import type { OrtAnswer } from '../platform/types.js';
import type { WorkerModelSource } from './protocol.js';

/** A platform version as a model: its trained model is resolved through the platform (`PlatformClient`). */
export interface VersionRef {
  /** The workspace's URL slug. */
  workspace: string;
  /** The project's URL slug. */
  project: string;
  /** The version number. */
  version: number;
}

/**
 * The package of `ref`. The `ort` answer is asked for each time (it may change) and kept in Cache
 * Storage, keyed by the platform's URL, project and version (no API key); when the platform cannot be
 * reached (a connection error or a timeout, or the browser says it is offline) the kept answer is used,
 * and the model files come from the same cache. Any other answer (not found, bad key) is the platform's
 * word and is thrown.
 */
export async function versionModelSource(platform: PlatformClient, ref: VersionRef, cache: boolean): Promise<WorkerModelSource> {
  const store = cache ? cacheStoragePackageCache() : null;
  const key = `${platform.baseUrl}/ort/${encodeURIComponent(ref.project)}/${encodeURIComponent(String(ref.version))}`;
  // Offline as far as the browser knows: the kept answer at once, without waiting out the client's retries.
  const offline = store && globalThis.navigator?.onLine === false ? await readAnswer(store, key) : null;
  const answer = offline ?? (await askPlatform(platform, ref, store, key));
  const { ort } = answer;
  const config: Record<string, string> = ort.environment
    ? { 'environment.json': ort.environment }
    : ort.inference_config
      ? { 'inference_config.json': ort.inference_config }
      : {};
  if (!Object.keys(config).length)
    throw new ModelPackageError('MODEL_FILE_MISSING', `the platform gave no configuration file for ${ref.project}/${ref.version}`);
  return {
    kind: 'urls',
    urls: { 'weights.onnx': ort.model, ...config },
    files: { 'class_names.txt': new TextEncoder().encode(ort.classes.join('\n')) },
  };
}

async function askPlatform(platform: PlatformClient, ref: VersionRef, store: PackageCache | null, key: string): Promise<OrtAnswer> {
  let answer: OrtAnswer;
  try {
    answer = await platform.ort(ref.project, ref.version);
  } catch (error) {
    const name = (error as { name?: unknown }).name;
    const kept = (name === 'ConnectionError' || name === 'TimeoutError') && store ? await readAnswer(store, key) : null;
    if (kept) return kept;
    throw error;
  }
  // Best effort: a full or unavailable cache must not fail a start that has its answer.
  if (store) await store.put(key, new TextEncoder().encode(JSON.stringify(answer))).catch(() => undefined);
  return answer;
}

async function readAnswer(store: PackageCache, key: string): Promise<OrtAnswer | null> {
  const bytes = await store.get(key).catch(() => null);
  if (!bytes) return null;
  try {
    const answer = JSON.parse(new TextDecoder().decode(bytes)) as OrtAnswer;
    return typeof answer?.ort?.model === 'string' && Array.isArray(answer.ort.classes) ? answer : null;
  } catch {
    return null;
  }
}

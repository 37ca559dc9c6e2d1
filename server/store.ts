// The local platform's data directory: one state file (written atomically: temp file, fsync, rename) and
// the image, mask, generated-image and export files beside it. The directory holds the workspace keys and
// the provider's key: only its owner may read it (directories 0700, the state file 0600).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, open, readdir, rename, unlink } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { isEdgesegError } from '../src/errors/index.js';
import { checkDataDir, DIR_MODE, FILE_MODE, makeDataDir, readOwnFile, type DataDirCheck } from './data-dir.js';

export interface ImageState {
  id: string;
  name: string;
  /** Path of the image file, relative to the data directory. */
  file: string;
  /** Path of the class-id mask (8-bit PNG), when the image is annotated. */
  mask?: string;
  width: number;
  height: number;
  /** train / valid / test, or null when the image is not in the dataset (e.g. generated). */
  split: string | null;
  tags: string[];
  batch: string | null;
  created: number;
  owner: string;
  /** Classes present in the annotation (or, for unannotated images, the model's output). */
  classes: string[];
  /** The search embedding (see search.ts). */
  embedding: number[];
}

export interface VersionState {
  number: number;
  name: string;
  created: number;
  images: string[];
  preprocessing: Record<string, unknown>;
  augmentation: Record<string, unknown>;
  /** The trained model: a package folder (absolute, or relative to the data directory). */
  model?: { dir: string; modelType: string };
}

export interface ProjectState {
  url: string;
  name: string;
  type: string;
  created: number;
  updated: number;
  annotation: string;
  classes: string[];
  colors: Record<string, string>;
  images: ImageState[];
  versions: VersionState[];
}

export interface WorkspaceSettings {
  /** The image provider's key (OpenAI-compatible). Never returned by any route. */
  providerApiKey?: string;
  /** The provider's API base URL. Default https://api.openai.com/v1. */
  providerBaseUrl?: string;
  /** The vision model that describes images. Default gpt-4o. */
  captionModel?: string;
}

export interface WorkspaceState {
  url: string;
  name: string;
  apiKey: string;
  settings: WorkspaceSettings;
  projects: ProjectState[];
  /** Image descriptions by platform image id, for synthetic images. */
  captions: Record<string, { caption: string; model: string; created: number }>;
}

export interface PlatformState {
  format: 1;
  workspaces: WorkspaceState[];
  /** Export downloads by token: the file (relative to the data directory). */
  exports: Record<string, { file: string; created: number }>;
}

const STATE_FILE = 'platform.json';

export class Store {
  #state: PlatformState;
  #writes: Promise<void> = Promise.resolve();

  private constructor(
    readonly dir: string,
    state: PlatformState,
  ) {
    this.#state = state;
  }

  /**
   * Opens the data directory; `seed` makes the first state when there is none. A directory that holds
   * what this user's server did not write (see data-dir.ts) is refused with `DATA_DIR_UNSAFE` before
   * anything in it is read.
   */
  static async open(dir: string, seed: (store: { dir: string }) => Promise<PlatformState>, check: DataDirCheck = {}): Promise<Store> {
    const root = resolve(dir);
    if (!(await checkDataDir(root, check))) await makeDataDir(root);
    await removeLeftoverTemps(root);
    let state: PlatformState;
    try {
      state = JSON.parse((await readOwnFile(join(root, STATE_FILE), check.uid)).toString('utf8')) as PlatformState;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        if (isEdgesegError(error)) throw error;
        throw new Error(`the data directory's ${STATE_FILE} cannot be read: ${(error as Error).message}`, { cause: error });
      }
      state = await seed({ dir: root });
      const store = new Store(root, state);
      await store.save();
      return store;
    }
    return new Store(root, state);
  }

  get state(): PlatformState {
    return this.#state;
  }

  /**
   * The workspace whose key this is. Compared as SHA-256 digests, in constant time, against every
   * workspace: how long it takes says nothing of how much of a key was right, nor of which one matched.
   */
  workspaceByKey(apiKey: string): WorkspaceState | undefined {
    const digest = sha256(apiKey);
    let found: WorkspaceState | undefined;
    for (const w of this.#state.workspaces) {
      const match = timingSafeEqual(digest, sha256(w.apiKey));
      found = match && found === undefined ? w : found;
    }
    return found;
  }

  /** Changes the state and writes it; writes are serialised, each one atomic. */
  async update(change: (state: PlatformState) => void): Promise<void> {
    change(this.#state);
    await this.save();
  }

  /**
   * Writes the whole state. Each write waits for the one before it, whatever that one's outcome: a write
   * that failed (a full disk, say) rejects its own caller only, and the next write carries its changes too.
   */
  save(): Promise<void> {
    const text = JSON.stringify(this.#state, null, 1);
    const write = this.#writes.then(() => writeAtomic(join(this.dir, STATE_FILE), text));
    this.#writes = write.catch(() => {});
    return write;
  }

  /** An absolute path inside the data directory; anything that would leave it is refused. */
  path(relativePath: string): string {
    const full = resolve(this.dir, relativePath);
    if (full !== this.dir && !full.startsWith(this.dir + sep)) throw new Error(`path escapes the data directory: ${relativePath}`);
    return full;
  }

  relative(absolutePath: string): string {
    return relative(this.dir, absolutePath);
  }
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** Temporary files of writeAtomic: `{target}.{pid}.{8 hex}.tmp`. */
const TEMP_FILE = /\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/** Writes a file so that a crash leaves either the old or the new content, never a mix. */
export async function writeAtomic(path: string, data: string | Uint8Array, mode = FILE_MODE): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: DIR_MODE });
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const handle = await open(temp, 'w', mode);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
}

/**
 * Deletes the temporary files that a crashed process left mid-write. A file whose writer is still alive
 * (another server on the same directory, or this process) is kept: removing it would fail that write.
 */
async function removeLeftoverTemps(root: string): Promise<void> {
  const names = await readdir(root, { recursive: true });
  for (const name of names) {
    const pid = TEMP_FILE.exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid || isAlive(Number(pid))) continue;
    await unlink(join(root, name)).catch(() => {});
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

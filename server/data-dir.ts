// Whether the data directory may be trusted, checked before anything in it is read: it holds the keys, and
// the server takes its state, signing secret, images and models from it. Only what this user's server could
// have written there is taken: no symbolic link, nothing another user owns, no folder others may write to.
import { constants } from 'node:fs';
import { chmod, lstat, mkdir, open, readdir, realpath } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { EdgesegError } from '../src/errors/index.js';

export interface DataDirCheck {
  /** The user the server runs as; default `process.getuid()` (where the system has one). */
  uid?: number;
  /** Told about each mode repaired (a folder or file readable by others). */
  log?: (line: string) => void;
}

/** Modes of what the data directory holds: its owner's alone. */
export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

const FIX = 'use a data directory of your own (--data <dir>, EDGESEG_DATA_DIR)';
const unsafe = (message: string) => new EdgesegError('DATA_DIR_UNSAFE', message);
const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;

/**
 * Refuses (`DATA_DIR_UNSAFE`, saying what to fix) a data directory that holds a symbolic link, a file or
 * folder of another user, or a folder that group or others may write to, a FIFO or a device: someone else
 * could have put it there. Modes that only let others read (an earlier version's 0755 and 0644) are
 * repaired, and told to `log`. Returns whether the directory exists (false: the caller makes and seeds it).
 */
export async function checkDataDir(root: string, options: DataDirCheck = {}): Promise<boolean> {
  const uid = options.uid ?? process.getuid?.();
  // Owners and mode bits are POSIX's: where there is no uid (Windows), only links and devices are checked.
  const posix = uid !== undefined;
  const top = await lstat(root).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (top === null) return false;
  // A link the user made to a folder elsewhere is theirs to make; one another user planted is not.
  if (top.isSymbolicLink() && posix && top.uid !== uid && top.uid !== 0)
    throw unsafe(`the data directory ${root} is a symbolic link made by another user (uid ${top.uid}): ${FIX}`);
  const real = top.isSymbolicLink() ? await realpath(root) : root;
  const info = top.isSymbolicLink() ? await lstat(real) : top;
  if (!info.isDirectory()) throw unsafe(`the data directory ${root} is not a folder: ${FIX}`);
  if (posix && info.uid !== uid) throw unsafe(`the data directory ${root} belongs to another user (uid ${info.uid}): ${FIX}`);
  if (posix && (info.mode & 0o022) !== 0)
    throw unsafe(
      `the data directory ${root} can be written by other users (mode ${octal(info.mode)}), who could have put files in it: check what it holds, then chmod 700 ${real}`,
    );
  // Repaired only once the whole directory has passed: a refused one is left exactly as it was found.
  const repairs: { path: string; mode: number; was: number }[] = [];
  const repair = (path: string, mode: number, was: number) => {
    if (posix && (was & 0o777 & ~mode) !== 0) repairs.push({ path, mode, was });
  };
  repair(real, DIR_MODE, info.mode);
  // Sorted, so that what is refused or repaired first does not depend on the file system's order.
  for (const name of (await readdir(real, { recursive: true })).sort()) {
    const path = join(real, name);
    const entry = await lstat(path);
    const what = `the data directory's ${name}`;
    if (entry.isSymbolicLink())
      throw unsafe(
        `${what} is a symbolic link: the server reads only files it wrote there. Check where it leads, then remove it (${path})`,
      );
    if (!entry.isDirectory() && !entry.isFile())
      throw unsafe(`${what} is neither a file nor a folder (a FIFO, socket or device): remove it (${path})`);
    if (posix && entry.uid !== uid)
      throw unsafe(`${what} belongs to another user (uid ${entry.uid}): check it, then remove it (${path}), or ${FIX}`);
    if (posix && entry.isDirectory() && (entry.mode & 0o022) !== 0)
      throw unsafe(
        `${what} can be written by other users (mode ${octal(entry.mode)}), who could have put files in it: check what it holds, then chmod 700 ${path}`,
      );
    // A file of this user's, in folders only this user can enter: made private like every file the server writes.
    repair(path, entry.isDirectory() ? DIR_MODE : FILE_MODE, entry.mode);
  }
  for (const { path, mode } of repairs) await chmod(path, mode);
  if (repairs.length > 0) {
    const list = repairs.map(({ path, was }) => `${relative(real, path) || '.'} (was ${octal(was)})`).join(', ');
    options.log?.(`data directory ${real}: made private to its owner: ${list}`);
  }
  return true;
}

/** Makes a new data directory (0700); a folder above it that this user may not write to is `DATA_DIR_UNSAFE`. */
export async function makeDataDir(root: string): Promise<void> {
  try {
    await mkdir(root, { recursive: true, mode: DIR_MODE });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') throw unsafe(`the data directory ${root} cannot be made there (${code}): ${FIX}`);
    throw error;
  }
}

/**
 * A file of the data directory, read only if it is a regular file of this user's (not through a symbolic
 * link, checked on the opened file itself); ENOENT as thrown by the system.
 */
export async function readOwnFile(path: string, uid = process.getuid?.()): Promise<Buffer> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP')
      throw unsafe(`${path} is a symbolic link: the server reads only files it wrote there. Check where it leads, then remove it`);
    throw error;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw unsafe(`${path} is not a regular file: remove it`);
    if (uid !== undefined && info.uid !== uid) throw unsafe(`${path} belongs to another user (uid ${info.uid}): check it, then remove it`);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

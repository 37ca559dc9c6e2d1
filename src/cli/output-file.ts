// The batch's files, written below its output folder without following a symbolic link.
import { constants } from 'node:fs';
import { lstat, mkdir, open } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';

/**
 * Writes `bytes` to `file`, which lies below `outDir`, making the folders between them. The output folder
 * may already hold anything, the photos' own folder among them: a link there (dangling, to a file or to a
 * folder elsewhere) would have the batch create or overwrite a file outside it. It is refused with an
 * error that says so, and nothing is written. The folder named by `--out-dir` itself is taken as given,
 * link or not: the user named it.
 */
export async function writeOutputFile(outDir: string, file: string, bytes: Uint8Array): Promise<void> {
  const rel = relative(outDir, file);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) throw new Error(`${file} is not below ${outDir}`);
  const folders = rel.split(sep).slice(0, -1);
  let dir = outDir;
  for (const name of folders) {
    dir = join(dir, name);
    // mkdir makes nothing where anything is, a dangling link included (EEXIST); then what is there is checked.
    await mkdir(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    const found = await lstat(dir);
    if (found.isSymbolicLink()) throw linkError(dir, 'folder');
    if (!found.isDirectory()) throw new Error(`${dir} is not a folder: not written`);
  }
  // O_NOFOLLOW: a link at the file itself fails (ELOOP) rather than being followed, and before O_TRUNC cuts
  // anything (as a folder fails with EISDIR); a FIFO, which O_TRUNC leaves alone, is written as a stream (a
  // reader asked for the output there).
  let handle;
  try {
    handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o666);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw linkError(file, 'file', error);
    throw error;
  }
  try {
    await handle.writeFile(bytes);
  } finally {
    await handle.close();
  }
}

const linkError = (path: string, what: 'file' | 'folder', cause?: unknown) =>
  new Error(
    `${path} is a symbolic link: edgeseg does not write through a link in the output folder (the ${what} it leads to was left as it was; remove the link, or choose another --out-dir)`,
    { cause },
  );

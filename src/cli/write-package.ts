// Writes a model package's files into a folder for `edgeseg package`: no file replaced without --force, no
// symbolic link written through, and no file left half written.
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_FILES, type PackageFiles } from '../model/index.js';
import { UsageError } from './usage-error.js';

async function lstatOrNone(path: string): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`could not read ${path}: ${(error as Error).message}`);
  }
}

/**
 * Writes `files` into `dir` (made where missing). Every package file already there (the ones written, and the
 * others, which would change what the package means: an old model_config.json, environment.json…) is refused
 * without `force` and removed with it. A symbolic link in their place, or as `dir`, is refused either way.
 * Each file is written beside its name and renamed over it, so each is the old one or the new one.
 *
 * @throws {@link UsageError} (exit code 2) for all of those, and where the folder cannot be written.
 */
export async function writePackageFiles(dir: string, files: PackageFiles, { force }: { force: boolean }): Promise<void> {
  const folder = await lstatOrNone(dir);
  if (folder?.isSymbolicLink())
    throw new UsageError(`--out ${dir} is a symbolic link: edgeseg package writes only into a real folder (give the folder it points to)`);
  if (folder && !folder.isDirectory()) throw new UsageError(`--out ${dir} is a file, not a folder`);
  const present: { name: string; stats: Stats }[] = [];
  if (folder) {
    for (const name of PACKAGE_FILES) {
      const stats = await lstatOrNone(join(dir, name));
      if (stats) present.push({ name, stats });
    }
  }
  const odd = present.filter(({ stats }) => !stats.isFile());
  if (odd.length)
    throw new UsageError(
      `${dir} holds ${odd.map(({ name, stats }) => `${name} (${stats.isSymbolicLink() ? 'a symbolic link' : 'not a file'})`).join(', ')}: edgeseg package never writes through a link or over a folder; remove it first`,
    );
  if (present.length && !force)
    throw new UsageError(
      `${dir} already holds ${present.map(({ name }) => name).join(', ')}: give --force to replace the package there, or another --out`,
    );

  let made: string | undefined;
  const temps: [temp: string, name: string][] = [];
  try {
    if (!folder) made = await mkdir(dir, { recursive: true });
    const tag = `${process.pid}.${randomBytes(6).toString('hex')}`;
    for (const [name, bytes] of Object.entries(files)) {
      const temp = join(dir, `.${name}.${tag}.tmp`);
      // wx: a new file, never one a link already names.
      await writeFile(temp, bytes, { flag: 'wx' });
      temps.push([temp, name]);
    }
    // rename replaces a name, never writing through what it named.
    for (const [temp, name] of temps) await rename(temp, join(dir, name));
    temps.length = 0;
    for (const { name } of present) if (!(name in files)) await rm(join(dir, name), { force: true });
  } catch (error) {
    for (const [temp] of temps) await rm(temp, { force: true });
    if (made) await rm(made, { recursive: true, force: true });
    if (error instanceof UsageError) throw error;
    throw new UsageError(`could not write the package into ${dir}: ${(error as Error).message}`);
  }
}

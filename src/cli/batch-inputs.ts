// The images a batch run reads, from the command line's files, folders and globs, and the names of what it writes.
import { readdir, realpath, stat } from 'node:fs/promises';
import type { Dirent, Stats } from 'node:fs';
import { basename, extname, join, resolve, sep } from 'node:path';
import { InvalidInputError } from '../errors/index.js';
import { globToRegExp, isGlob, splitGlob } from './glob.js';

/** What a folder walk takes: names that libvips decodes as photos. A file named on the command line or matched by a glob is read whatever its name. */
export const IMAGE_EXTENSIONS: ReadonlySet<string> = new Set([
  '.jpg',
  '.jpeg',
  '.jpe',
  '.jfif',
  '.png',
  '.webp',
  '.gif',
  '.avif',
  '.tif',
  '.tiff',
]);

export interface BatchInput {
  /** The path to read: as given, or the argument joined with what was found under it. */
  path: string;
  /** Its path under the output folder, its extension included: below the folder or the glob's fixed part it was found in, or the file's own name. */
  relative: string;
  /** Why it cannot be read, found while listing (a dangling link, a FIFO, an argument that matched nothing). */
  error?: InvalidInputError;
}

export interface BatchListing {
  inputs: BatchInput[];
  /** Files a folder walk passed over: their names are not image names (IMAGE_EXTENSIONS). */
  skipped: string[];
}

/**
 * The inputs of `args` in order, each file once. A folder gives the image files below it, symbolic links
 * followed (each folder once), in name order, hidden names (a leading dot) left out; a glob the paths it
 * matches, in the same order. An argument that is neither an existing path nor a glob is kept, so that
 * reading it reports why it failed. `exclude` (the output folder) is not walked into, unless it is the
 * folder named. A folder that cannot be listed is an input with its error, and the walk goes on.
 */
export async function listBatchInputs(args: readonly string[], options: { exclude?: string } = {}): Promise<BatchListing> {
  const exclude = options.exclude === undefined ? undefined : await realpath(options.exclude).catch(() => resolve(options.exclude!));
  const inputs: BatchInput[] = [];
  const skipped: string[] = [];
  const seen = new Set<string>();
  const add = async (input: BatchInput) => {
    const key = await realpath(input.path).catch(() => resolve(input.path));
    if (input.error === undefined && seen.has(key)) return;
    seen.add(key);
    inputs.push(input);
  };

  for (const arg of args) {
    const stats = await stat(arg).catch(() => undefined);
    if (stats?.isDirectory()) {
      const found = await walk(arg, Infinity, { exclude, hidden: false });
      const wanted = (f: Found) => f.kind === 'unlistable' || isImageName(f.relative);
      const images = found.filter(wanted);
      skipped.push(...found.filter((f) => !wanted(f)).map((f) => join(arg, f.relative)));
      if (images.length === 0)
        await add({
          path: arg,
          relative: '',
          error: new InvalidInputError('IMAGE_SOURCE_INVALID', `${arg} holds no image files (${[...IMAGE_EXTENSIONS].join(' ')})`),
        });
      for (const f of images) await add(fromFound(arg, f));
    } else if (stats === undefined && isGlob(arg)) {
      const { base, rest, depth } = splitGlob(arg);
      const pattern = globToRegExp(rest);
      const found = (await walk(base, depth, { exclude, hidden: true })).filter((f) => pattern.test(f.relative.split(sep).join('/')));
      if (found.length === 0)
        await add({ path: arg, relative: '', error: new InvalidInputError('IMAGE_SOURCE_INVALID', `no file matches ${arg}`) });
      for (const f of found) await add(fromFound(base, f));
    } else {
      await add({ path: arg, relative: basename(arg) });
    }
  }
  return { inputs, skipped };
}

export interface OutputPlan {
  /** For each input, its output files (one per suffix, under the output folder); none for an input that cannot be read. */
  outputs: string[][];
  /** Files that two inputs would still write (or an output that is an input), with the inputs' paths: the run must not start. */
  clashes: { file: string; inputs: string[] }[];
}

/**
 * The files each input writes: its relative path with the extension replaced by each suffix
 * (`trip/a.jpg` → `trip/a.png`, `trip/a.cutout.png`). Inputs whose outputs would clash with another's
 * (`a.jpg` and `a.png` in one folder), or would overwrite an input, keep their extension instead
 * (`a.jpg.png`, `a.png.png`). What still clashes (two files with the same relative path, found under two
 * arguments) is listed in `clashes`.
 */
export function assignOutputs(inputs: readonly BatchInput[], outDir: string, suffixes: readonly string[]): OutputPlan {
  const readable = inputs.map((input, i) => (input.error === undefined ? i : -1)).filter((i) => i >= 0);
  const inputPaths = new Set(readable.map((i) => resolve(inputs[i]!.path)));
  const keepExtension = new Set<number>();
  const outputsOf = (i: number) => {
    const rel = inputs[i]!.relative;
    const stem = keepExtension.has(i) ? rel : rel.slice(0, rel.length - extname(rel).length);
    return suffixes.map((suffix) => join(outDir, stem + suffix));
  };
  const findClashes = () => {
    const claims = new Map<string, number[]>();
    for (const i of readable) for (const file of outputsOf(i)) claims.set(resolve(file), [...(claims.get(resolve(file)) ?? []), i]);
    return [...claims].filter(([file, owners]) => owners.length > 1 || inputPaths.has(file));
  };
  for (const [, owners] of findClashes()) for (const i of owners) keepExtension.add(i);
  const clashes = findClashes().map(([file, owners]) => ({ file, inputs: owners.map((i) => inputs[i]!.path) }));
  return { outputs: inputs.map((input, i) => (input.error === undefined ? outputsOf(i) : [])), clashes };
}

const isImageName = (path: string) => IMAGE_EXTENSIONS.has(extname(path).toLowerCase());

type Found = { relative: string; kind: 'file' | 'dangling' | 'other' | 'unlistable'; what?: string };

function fromFound(base: string, f: Found): BatchInput {
  const path = join(base, f.relative);
  if (f.kind === 'file') return { path, relative: f.relative };
  const why =
    f.kind === 'dangling'
      ? 'a symbolic link to nothing'
      : f.kind === 'unlistable'
        ? `a folder that cannot be listed (${f.what})`
        : `not a regular file (${f.what})`;
  return { path, relative: f.relative, error: new InvalidInputError('IMAGE_SOURCE_INVALID', `could not read ${path}: ${why}`) };
}

/**
 * Everything below `dir` that is not a folder, `depth` levels down at most, in name order folder by folder;
 * names starting with a dot only when `hidden` (a glob filters them itself). FIFOs and devices are
 * reported, never opened: a FIFO with no writer would wait forever.
 */
async function walk(
  dir: string,
  depth: number,
  options: { exclude: string | undefined; hidden: boolean },
  visited = new Set<string>(),
  prefix = '',
): Promise<Found[]> {
  const real = await realpath(dir).catch(() => resolve(dir));
  // The output folder is passed over below the folder walked, not when it is that folder: the user asked for it.
  if (visited.has(real) || (real === options.exclude && prefix !== '')) return [];
  visited.add(real);
  let listed: Dirent[];
  try {
    listed = await readdir(dir, { withFileTypes: true });
  } catch (cause) {
    // Unreadable (EACCES for a user other than root) or gone since: reported, the rest still walked.
    return [{ relative: prefix === '' ? '.' : prefix, kind: 'unlistable', what: (cause as NodeJS.ErrnoException).code ?? String(cause) }];
  }
  const entries = listed
    .filter((e) => options.hidden || !e.name.startsWith('.'))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: Found[] = [];
  for (const entry of entries) {
    const relativePath = prefix === '' ? entry.name : join(prefix, entry.name);
    const full = join(dir, entry.name);
    let stats: Stats | undefined = undefined;
    if (entry.isSymbolicLink()) {
      stats = await stat(full).catch(() => undefined);
      if (stats === undefined) {
        out.push({ relative: relativePath, kind: 'dangling' });
        continue;
      }
    }
    const isDir = stats ? stats.isDirectory() : entry.isDirectory();
    const isFile = stats ? stats.isFile() : entry.isFile();
    if (isDir) {
      if (depth > 1) out.push(...(await walk(full, depth - 1, options, visited, relativePath)));
    } else if (isFile) {
      out.push({ relative: relativePath, kind: 'file' });
    } else {
      out.push({ relative: relativePath, kind: 'other', what: kindOf(stats ?? entry) });
    }
  }
  return out;
}

function kindOf(s: { isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): string {
  if (s.isFIFO()) return 'a FIFO';
  if (s.isSocket()) return 'a socket';
  if (s.isCharacterDevice()) return 'a character device';
  if (s.isBlockDevice()) return 'a block device';
  return 'not a file';
}

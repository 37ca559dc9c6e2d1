// The batch command against a hostile folder: symbolic links in its output folder (dangling, to a file
// outside, to a folder outside) are never written through, and file names that hold terminal escapes are
// printed escaped, in the summary and in errors.
import { copyFile, lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { main } from '../../src/cli/cli.js';
import type { BatchSummary } from '../../src/cli/batch.js';
import { fixturePath } from '../fixtures/reference/fixtures.js';
import { parseJson } from '../helpers/json.js';
import { TINY } from '../helpers/paths.js';

const MODEL = TINY('tiny-legacy');
const PNG = fixturePath('data/shapes-300x200.png');
const JPEG = fixturePath('data/exif-rotated-120x80.jpg');

let root: string;
const at = (...p: string[]) => join(root, ...p);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'edgeseg-batch-hostile-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** The command line in this process, as bin/edgeseg.js runs it, with what it printed. */
async function edgeseg(args: string[]): Promise<{ exit: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const exit = await main(args, { out: (s) => (stdout += s), err: (s) => (stderr += s), errIsTTY: false });
  return { exit, stdout, stderr };
}

test('links in the output folder, dangling or not, to a file or a folder, are not written through: OUTPUT_WRITE_FAILED, nothing outside', async () => {
  const input = at('in');
  const outside = at('outside');
  await mkdir(join(input, 'trip'), { recursive: true });
  await mkdir(join(outside, 'folder'), { recursive: true });
  await copyFile(JPEG, join(input, 'c.jpg'));
  await copyFile(JPEG, join(input, 'd.jpg'));
  await copyFile(PNG, join(input, 'e.png'));
  await copyFile(JPEG, join(input, 'trip', 'f.jpg'));
  await writeFile(join(outside, 'kept.png'), 'the user file a link points at');
  // The attack as reported: --out-dir the input folder, in which c.png (c.jpg's mask) links to a missing file outside.
  await symlink(join(outside, 'created.png'), join(input, 'c.png'));
  const out = at('out');
  await mkdir(out);
  // In a separate output folder: a link to an existing file outside, and a folder that is a link outside.
  await symlink(join(outside, 'kept.png'), join(out, 'd.png'));
  await symlink(join(outside, 'folder'), join(out, 'trip'));

  const apart = await edgeseg(['segment', input, '--out-dir', out, '--model', MODEL, '--json']);
  const inPlace = await edgeseg(['segment', input, '--out-dir', input, '--model', MODEL, '--json']);

  // Nothing was created or changed outside.
  expect((await readdir(outside)).sort()).toEqual(['folder', 'kept.png']);
  expect(await readdir(join(outside, 'folder'))).toEqual([]);
  expect(await readFile(join(outside, 'kept.png'), 'utf8')).toBe('the user file a link points at');
  // The links are as they were.
  const links: [string, string][] = [
    [join(input, 'c.png'), join(outside, 'created.png')],
    [join(out, 'd.png'), join(outside, 'kept.png')],
    [join(out, 'trip'), join(outside, 'folder')],
  ];
  for (const [link, target] of links)
    expect([link, (await lstat(link)).isSymbolicLink(), await readlink(link)]).toEqual([link, true, target]);

  // Each image whose file is a link failed with a coded error saying so; the others were written.
  const failures = (run: { stdout: string }) =>
    parseJson<BatchSummary>(run.stdout).failed.map((f) => [f.path, f.code, /symbolic link/.test(f.message)]);
  expect(failures(inPlace)).toEqual([
    [join(input, 'c.jpg'), 'OUTPUT_WRITE_FAILED', true],
    [join(input, 'c.png'), 'IMAGE_SOURCE_INVALID', true],
  ]);
  expect(failures(apart)).toEqual([
    [join(input, 'c.png'), 'IMAGE_SOURCE_INVALID', true],
    [join(input, 'd.jpg'), 'OUTPUT_WRITE_FAILED', true],
    [join(input, 'trip', 'f.jpg'), 'OUTPUT_WRITE_FAILED', true],
  ]);
  expect([inPlace.exit, apart.exit]).toEqual([1, 1]);
  expect(parseJson<BatchSummary>(apart.stdout).written.map((w) => w.files)).toEqual([[join(out, 'c.png')], [join(out, 'e.png')]]);
  // The summary line names the file and why.
  expect(apart.stderr).toContain(`  ${join(input, 'd.jpg')}: ${join(out, 'd.png')} is a symbolic link`);
});

test('file names with terminal escapes are printed escaped in the summary and in errors; --json keeps them exact', async () => {
  const input = at('names');
  await mkdir(input);
  // A name that would retitle the terminal, ring its bell, clear the screen and rewrite the line before it.
  const hostile = 'x\x1b]0;pwned\x07\x1b[2J\rfake line\x9b31m.png';
  await writeFile(join(input, hostile), 'not an image');
  await copyFile(PNG, join(input, 'ok.png'));
  const run = await edgeseg(['segment', input, '--out-dir', at('names-out'), '--model', MODEL, '--json']);
  expect(run.exit).toBe(3);
  // eslint-disable-next-line no-control-regex -- the characters that must not reach the terminal
  const controls = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/;
  expect(run.stderr).not.toMatch(controls);
  expect(run.stderr).toContain(`${input}/x\\x1b]0;pwned\\x07\\x1b[2J\\rfake line\\x9b31m.png: `);
  // The machine-readable summary has the name as it is.
  expect(parseJson<BatchSummary>(run.stdout).failed[0]!.path).toBe(join(input, hostile));

  // A single image with such a name, and a usage error naming one: the same.
  const single = await edgeseg(['segment', join(input, `missing-${hostile}`), '--model', MODEL]);
  expect([single.exit, single.stderr]).toEqual([3, expect.stringContaining('missing-x\\x1b]0;pwned\\x07') as unknown]);
  expect(single.stderr).not.toMatch(controls);
  const usage = await edgeseg(['segment', join(input, hostile), '--out-dir', join(input, hostile, 'sub')]);
  expect(usage.exit).toBe(2);
  expect(usage.stderr).toContain('\\x1b[2J');
  expect(usage.stderr).not.toMatch(controls);
});

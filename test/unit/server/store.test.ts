import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { Store, type PlatformState } from '../../../server/store.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'edgeseg-store-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const seed = (): Promise<PlatformState> => Promise.resolve({ format: 1, workspaces: [], exports: {} });
const saved = async () => JSON.parse(await readFile(join(dir, 'platform.json'), 'utf8')) as PlatformState;

test('a failed write rejects its caller only: later writes succeed and carry its change', async () => {
  const store = await Store.open(dir, seed);
  await store.update((s) => {
    s.exports.a = { file: 'a.zip', created: 1 };
  });
  // A non-empty directory where the state file goes: the rename of the next write fails (even as root).
  await rm(join(dir, 'platform.json'));
  await mkdir(join(dir, 'platform.json', 'blocker'), { recursive: true });
  await expect(
    store.update((s) => {
      s.exports.b = { file: 'b.zip', created: 2 };
    }),
  ).rejects.toThrow();
  // …and its temporary file is gone.
  expect((await readdir(dir)).sort()).toEqual(['platform.json']);
  await rm(join(dir, 'platform.json'), { recursive: true });
  await store.update((s) => {
    s.exports.c = { file: 'c.zip', created: 3 };
  });
  expect(Object.keys((await saved()).exports)).toEqual(['a', 'b', 'c']);
  // Queued writes after a failure go through too.
  await Promise.all(
    [1, 2, 3].map((n) =>
      store.update((s) => {
        s.exports[`q${n}`] = { file: `${n}.zip`, created: n };
      }),
    ),
  );
  expect(Object.keys((await saved()).exports)).toEqual(['a', 'b', 'c', 'q1', 'q2', 'q3']);
});

test("open removes temporary files left by a dead writer, and keeps a live writer's", async () => {
  await Store.open(dir, seed);
  // Above Linux's largest pid: no such process.
  const dead = 99_999_999;
  const live = process.ppid;
  await mkdir(join(dir, 'files', 'ws', 'p', 'images'), { recursive: true });
  const leftovers = [`platform.json.${dead}.0badc0de.tmp`, `files/ws/p/images/abc.png.${dead}.12345678.tmp`];
  const kept = [`platform.json.${live}.aaaaaaaa.tmp`, `files/ws/p/images/abc.png`, 'notes.tmp'];
  for (const name of [...leftovers, ...kept]) await writeFile(join(dir, name), 'x');
  await Store.open(dir, seed);
  const left = (await readdir(dir, { recursive: true })).filter((n) => !n.endsWith('/') && /\.(tmp|png|json)$/.test(n)).sort();
  expect(left).toEqual(['files/ws/p/images/abc.png', 'notes.tmp', `platform.json`, `platform.json.${live}.aaaaaaaa.tmp`]);
});

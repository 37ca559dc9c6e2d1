// The data directory trusts nothing it did not write: a planted symbolic link, a file or folder of another
// user, a folder others may write to, a FIFO are refused with DATA_DIR_UNSAFE before anything is read, and
// no folder's mode is changed behind the user's back.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmod, chown, lchown, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { main } from '../../src/cli/cli.js';
import { checkDataDir } from '../../server/data-dir.js';
import { openPlatform, startPlatformServer, type PlatformState } from '../../server/index.js';
import { loadSigningSecret } from '../../server/signing.js';
import { ROOT, TINY } from '../helpers/paths.js';

const WS = 'edgeseg-demo';
const KEY = 'the-owners-key-000000000000000001';
const PLANTED_KEY = 'attacker-chosen-key-000000000001';
const isRoot = process.getuid?.() === 0;
/** A user the tests run as never is. */
const NOBODY = 65534;

let dir: string;
let n = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'edgeseg-data-dir-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const state = (apiKey: string): PlatformState => ({
  format: 1,
  exports: {},
  workspaces: [{ url: WS, name: 'w', apiKey, settings: { providerApiKey: `sk-of-${apiKey}` }, captions: {}, projects: [] }],
});

/** A data directory as the server leaves it: 0700 folders, 0600 files (state, signing key, an image). */
async function dataDir(): Promise<string> {
  const root = join(dir, `data-${++n}`);
  const images = join(root, 'files', WS, 'shapes', 'images');
  await mkdir(images, { recursive: true, mode: 0o700 });
  await writeFile(join(root, 'platform.json'), JSON.stringify(state(KEY)), { mode: 0o600 });
  await writeFile(join(root, 'signing-key'), `${'ab'.repeat(32)}\n`, { mode: 0o600 });
  await writeFile(join(images, 'a.png'), 'png', { mode: 0o600 });
  return root;
}

/** What another user left: a state with their key, and a FIFO (opening it to read would hang the start). */
async function plantedFiles(): Promise<{ state: string; fifo: string }> {
  const other = await mkdtemp(join(dir, 'other-'));
  await writeFile(join(other, 'platform.json'), JSON.stringify(state(PLANTED_KEY)));
  execFileSync('mkfifo', [join(other, 'fifo')]);
  return { state: join(other, 'platform.json'), fifo: join(other, 'fifo') };
}

/** The start's refusal: its code and message (which must not carry what was planted). */
async function refusal(root: string): Promise<{ code: string; message: string }> {
  const error = (await openPlatform({ dataDir: root, modelDir: TINY('tiny-legacy') }).then(
    async (p) => {
      await p.handler.close();
      throw new Error(`the data directory ${root} was taken, key ${p.apiKey}`);
    },
    (e: unknown) => e,
  )) as { code: string; message: string };
  expect(error.message).not.toContain(PLANTED_KEY);
  return { code: error.code, message: error.message };
}

const modeOf = async (path: string) => (await lstat(path)).mode & 0o777;

describe('planted symbolic links', () => {
  test('platform.json, signing-key or an image linked elsewhere: DATA_DIR_UNSAFE naming it, the target never opened', async () => {
    const planted = await plantedFiles();
    const cases: [string, string][] = [
      ['platform.json', planted.state],
      ['platform.json', planted.fifo],
      ['signing-key', planted.fifo],
      [join('files', WS, 'shapes', 'images', 'a.png'), planted.fifo],
      [join('files', WS, 'linked'), join(planted.state, '..')],
    ];
    for (const [name, target] of cases) {
      const root = await dataDir();
      await rm(join(root, name), { force: true });
      await symlink(target, join(root, name));
      const { code, message } = await refusal(root);
      expect([name, code]).toEqual([name, 'DATA_DIR_UNSAFE']);
      expect(message).toBe(
        `the data directory's ${name} is a symbolic link: the server reads only files it wrote there. Check where it leads, then remove it (${join(root, name)})`,
      );
    }
  }, 10_000);

  test('a link swapped in after the check is still not followed (signing-key and platform.json are opened with O_NOFOLLOW)', async () => {
    const planted = await plantedFiles();
    const root = await dataDir();
    await rm(join(root, 'signing-key'));
    await symlink(planted.fifo, join(root, 'signing-key'));
    await expect(loadSigningSecret(root)).rejects.toMatchObject({
      code: 'DATA_DIR_UNSAFE',
      message: `${join(root, 'signing-key')} is a symbolic link: the server reads only files it wrote there. Check where it leads, then remove it`,
    });
  });

  test('a data directory that is itself a link the user made is used; one made by another user is refused', async () => {
    const root = await dataDir();
    const link = join(dir, `link-${++n}`);
    await symlink(root, link);
    const p = await openPlatform({ dataDir: link, modelDir: TINY('tiny-legacy') });
    expect(p.apiKey).toBe(KEY);
    await p.handler.close();
    if (!isRoot) return;
    await lchown(link, NOBODY, NOBODY);
    expect(await refusal(link)).toEqual({
      code: 'DATA_DIR_UNSAFE',
      message: `the data directory ${link} is a symbolic link made by another user (uid ${NOBODY}): use a data directory of your own (--data <dir>, EDGESEG_DATA_DIR)`,
    });
  });
});

describe('modes and owners', () => {
  test('a folder others may write to is refused, and every mode left as it was', async () => {
    for (const [name, mode] of [
      ['.', 0o775],
      ['.', 0o777],
      [join('files', WS), 0o770],
      [join('files', WS, 'shapes', 'images'), 0o703],
    ] as const) {
      const root = await dataDir();
      const path = join(root, name);
      // A loose mode that would be repaired in a directory that passes: in a refused one, not even that.
      if (name !== '.') await chmod(root, 0o755);
      await chmod(path, mode);
      const { code, message } = await refusal(root);
      expect([name, code]).toEqual([name, 'DATA_DIR_UNSAFE']);
      expect(message).toContain(`can be written by other users (mode 0${mode.toString(8)}), who could have put files in it`);
      expect(message).toContain(`chmod 700 ${name === '.' ? root : path}`);
      expect(await modeOf(path)).toBe(mode);
      if (name !== '.') expect(await modeOf(root)).toBe(0o755);
    }
  });

  test('modes that only let others read (an earlier version 0755 and 0644) are repaired, and the repair is logged', async () => {
    const root = await dataDir();
    for (const path of [root, join(root, 'files')]) await chmod(path, 0o755);
    for (const name of ['platform.json', 'signing-key', join('files', WS, 'shapes', 'images', 'a.png')])
      await chmod(join(root, name), 0o644);
    const log: string[] = [];
    const p = await openPlatform({ dataDir: root, modelDir: TINY('tiny-legacy'), log: (line) => log.push(line) });
    await p.handler.close();
    for (const path of [root, join(root, 'files'), join(root, 'files', WS)]) expect(await modeOf(path)).toBe(0o700);
    for (const name of ['platform.json', 'signing-key', join('files', WS, 'shapes', 'images', 'a.png')])
      expect(await modeOf(join(root, name))).toBe(0o600);
    expect(log).toEqual([
      `data directory ${root}: made private to its owner: . (was 0755), files (was 0755), ${join('files', WS, 'shapes', 'images', 'a.png')} (was 0644), platform.json (was 0644), signing-key (was 0644)`,
    ]);
  });

  test('a FIFO in the data directory is refused', async () => {
    const root = await dataDir();
    execFileSync('mkfifo', [join(root, 'files', 'pipe')]);
    expect(await refusal(root)).toEqual({
      code: 'DATA_DIR_UNSAFE',
      message: `the data directory's files/pipe is neither a file nor a folder (a FIFO, socket or device): remove it (${join(root, 'files', 'pipe')})`,
    });
  });

  test('a file of another user is refused (checked against the uid the server runs as)', async () => {
    const root = await dataDir();
    const other = (process.getuid?.() ?? 0) + 1;
    await expect(checkDataDir(root, { uid: other })).rejects.toMatchObject({
      code: 'DATA_DIR_UNSAFE',
      message: `the data directory ${root} belongs to another user (uid ${process.getuid?.()}): use a data directory of your own (--data <dir>, EDGESEG_DATA_DIR)`,
    });
    if (!isRoot) return;
    await chown(join(root, 'platform.json'), NOBODY, NOBODY);
    expect(await refusal(root)).toEqual({
      code: 'DATA_DIR_UNSAFE',
      message: `the data directory's platform.json belongs to another user (uid ${NOBODY}): check it, then remove it (${join(root, 'platform.json')}), or use a data directory of your own (--data <dir>, EDGESEG_DATA_DIR)`,
    });
  });

  test.skipIf(!isRoot)(
    'an empty folder of another user is not seeded: edgeseg serve ends with DATA_DIR_UNSAFE, nothing written',
    async () => {
      const root = join(dir, `foreign-${++n}`);
      await mkdir(root, { mode: 0o700 });
      await chown(root, NOBODY, NOBODY);
      const err: string[] = [];
      const code = await main(['serve', '--port', '0', '--data', root], { out: () => {}, err: (s) => err.push(s) });
      expect(code).toBe(1);
      expect(err.join('')).toBe(
        `edgeseg: the data directory ${root} belongs to another user (uid ${NOBODY}): use a data directory of your own (--data <dir>, EDGESEG_DATA_DIR) [DATA_DIR_UNSAFE]\n`,
      );
      expect(await readdir(root)).toEqual([]);
    },
  );
});

interface Opened {
  apiKey?: string;
  code?: string;
  message?: string;
}

/** The platform opened on each of `dataDirs` by another user (nobody), in a Node of its own: its key, or its refusal. */
function openAsNobody(dataDirs: string[]): Opened[] {
  const script = `
    const { openPlatform } = await import(${JSON.stringify(join(ROOT, 'server', 'start.ts'))});
    const opened = [];
    for (const dataDir of ${JSON.stringify(dataDirs)}) {
      try {
        const p = await openPlatform({ dataDir, modelDir: ${JSON.stringify(TINY('tiny-legacy'))} });
        opened.push({ apiKey: p.apiKey });
        await p.handler.close();
      } catch (e) {
        opened.push({ code: e.code, message: e.message });
      }
    }
    console.log(JSON.stringify(opened));`;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    uid: NOBODY,
    gid: NOBODY,
    env: { ...process.env, HOME: tmpdir() },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return JSON.parse(child.stdout.trim().split('\n').at(-1) || 'null') as Opened[];
}

describe.skipIf(!isRoot)('run by another user (nobody; the tests being root)', () => {
  test("a folder of root's: nothing made or seeded there, DATA_DIR_UNSAFE rather than EACCES or EPERM", async () => {
    const shared = await mkdtemp(join(tmpdir(), 'edgeseg-shared-'));
    try {
      await chmod(shared, 0o755);
      // Writable by all but root's (once EPERM when its mode was repaired), and one nobody cannot write in.
      const open = join(shared, 'open');
      const closed = join(shared, 'closed');
      await mkdir(open);
      await chmod(open, 0o777);
      await mkdir(closed, { mode: 0o755 });
      // In a folder all may write to (sticky, as /tmp), a data directory of nobody's own is used.
      const sticky = join(shared, 'sticky');
      await mkdir(sticky);
      await chmod(sticky, 0o1777);
      const mine = await dataDir();
      execFileSync('cp', ['-a', mine, join(sticky, 'data')]);
      execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, join(sticky, 'data')]);
      const [inOpen, inClosed, own] = openAsNobody([open, join(closed, 'data'), join(sticky, 'data')]);
      expect(inOpen).toEqual({
        code: 'DATA_DIR_UNSAFE',
        message: `the data directory ${open} belongs to another user (uid 0): use a data directory of your own (--data <dir>, EDGESEG_DATA_DIR)`,
      });
      expect(await readdir(open)).toEqual([]);
      expect(inClosed).toEqual({
        code: 'DATA_DIR_UNSAFE',
        message: `the data directory ${join(closed, 'data')} cannot be made there (EACCES): use a data directory of your own (--data <dir>, EDGESEG_DATA_DIR)`,
      });
      expect(own).toEqual({ apiKey: KEY });
    } finally {
      await rm(shared, { recursive: true, force: true });
    }
  }, 60_000);
});

test('a new data directory: folders 0700, every file 0600, seeded images and masks included', async () => {
  const root = join(dir, 'seeded');
  const server = await startPlatformServer({ port: 0, dataDir: root, modelDir: TINY('tiny-legacy') });
  await server.close();
  const entries = [root, ...(await readdir(root, { recursive: true })).map((name) => join(root, name))];
  const modes = new Map<number, number>();
  for (const path of entries) {
    const info = await stat(path);
    const expected = info.isDirectory() ? 0o700 : 0o600;
    expect([path, info.mode & 0o777]).toEqual([path, expected]);
    modes.set(expected, (modes.get(expected) ?? 0) + 1);
  }
  // The samples are there: dozens of images and masks.
  expect(modes.get(0o600)).toBeGreaterThan(50);
  expect(JSON.parse(await readFile(join(root, 'platform.json'), 'utf8'))).toMatchObject({ format: 1 });
});

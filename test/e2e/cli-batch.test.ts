// The batch form of `edgeseg segment`, run as a user runs it (the built CLI in its own process) on temp folders.
import { execFileSync, spawnSync, type ChildProcess } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from 'vitest';
import { main } from '../../src/cli/cli.js';
import { cutoutRgba, maskAlpha } from '../../src/cli/cutout.js';
import { base64ToBytes, createSegmenter, decodeImage, decodeMaskPng, type NodeSegmenter } from '../../src/node/index.js';
import type { BatchSummary } from '../../src/cli/batch.js';
import type { SegmentationPayload } from '../../src/payload/index.js';
import { fixturePath } from '../fixtures/reference/fixtures.js';
import { ensureBuilt, runCli } from '../helpers/built-cli.js';
import { parseJson } from '../helpers/json.js';
import { ROOT, TINY } from '../helpers/paths.js';

const MODEL = TINY('tiny-legacy');
const PNG = fixturePath('data/shapes-300x200.png');
const JPEG = fixturePath('data/exif-rotated-120x80.jpg');
const WEBP = fixturePath('data/shapes-71x53.webp');
const SMALL = fixturePath('data/shapes-97x61.png');

let root: string;
let seg: NodeSegmenter;
const at = (...p: string[]) => join(root, ...p);

/** The single-image path's mask PNG for a file: what every batch mask must equal byte for byte. */
const maskOf = async (file: string) => base64ToBytes((await seg.segment(file)).segmentation_mask);

beforeAll(async () => {
  ensureBuilt();
  root = await mkdtemp(join(tmpdir(), 'edgeseg-batch-'));
  seg = await createSegmenter({ model: MODEL, numThreads: 1 });
});
afterAll(async () => {
  await seg.dispose();
  await rm(root, { recursive: true, force: true });
});

describe('edgeseg segment <folder> --out-dir', () => {
  test('segments every image, lists each bad one with its code, goes on, and exits 3', async () => {
    const input = at('photos');
    await mkdir(join(input, 'trip'), { recursive: true });
    await copyFile(PNG, join(input, 'a.png'));
    await copyFile(JPEG, join(input, 'trip', 'b.jpg'));
    await copyFile(WEBP, join(input, 'trip', 'c.webp'));
    // The same name with two extensions: both keep theirs in the output's name.
    await copyFile(SMALL, join(input, 'd.png'));
    await copyFile(PNG, join(input, 'd.jpg'));
    await writeFile(join(input, 'broken.jpg'), 'this is text, not a JPEG');
    await writeFile(join(input, 'notes.txt'), 'skipped: not an image name');
    // Unreadable even for root (tests run as root, whom chmod 000 does not stop): a dangling link, a FIFO.
    await symlink(join(input, 'nowhere.png'), join(input, 'gone.png'));
    execFileSync('mkfifo', [join(input, 'stream.png')]);
    const out = at('masks');

    const r = await runCli(['segment', input, '--out-dir', out, '--model', MODEL, '--cutout', '--overlay', '--json', '--concurrency', '3']);
    expect(r.code).toBe(3);
    const summary = parseJson<BatchSummary>(r.stdout);
    expect(summary.failed.map((f) => [f.path, f.code])).toEqual([
      [join(input, 'broken.jpg'), 'IMAGE_FORMAT_UNSUPPORTED'],
      [join(input, 'gone.png'), 'IMAGE_SOURCE_INVALID'],
      [join(input, 'stream.png'), 'IMAGE_SOURCE_INVALID'],
    ]);
    expect(summary.skipped).toEqual([join(input, 'notes.txt')]);
    expect([summary.images, summary.segmented]).toEqual([8, 5]);
    const written = Object.fromEntries(summary.written.map((w) => [w.path, w.files]));
    expect(written).toEqual({
      [join(input, 'a.png')]: ['a.png', 'a.cutout.png', 'a.overlay.jpg'].map((f) => join(out, f)),
      [join(input, 'd.jpg')]: ['d.jpg.png', 'd.jpg.cutout.png', 'd.jpg.overlay.jpg'].map((f) => join(out, f)),
      [join(input, 'd.png')]: ['d.png.png', 'd.png.cutout.png', 'd.png.overlay.jpg'].map((f) => join(out, f)),
      [join(input, 'trip', 'b.jpg')]: ['b.png', 'b.cutout.png', 'b.overlay.jpg'].map((f) => join(out, 'trip', f)),
      [join(input, 'trip', 'c.webp')]: ['c.png', 'c.cutout.png', 'c.overlay.jpg'].map((f) => join(out, 'trip', f)),
    });

    for (const [source, [mask, cutout, overlay]] of Object.entries(written)) {
      const expected = await maskOf(source);
      expect(Buffer.compare(await readFile(mask!), expected)).toBe(0);
      // The cutout: the image's pixels (orientation applied), its alpha the soft alpha of the Node API.
      const { width, height } = decodeMaskPng(expected);
      const { alpha } = await seg.segmentRaw(source, { alpha: true });
      const original = await decodeImage(await readFile(source));
      const cut = await decodeRgba(cutout!);
      expect([cut.width, cut.height]).toEqual([width, height]);
      let kept = 0;
      let wrong = 0;
      for (let p = 0; p < width * height; p++) {
        if (cut.data[p * 4 + 3] !== alpha[p]) wrong++;
        if (alpha[p] === 0) continue;
        kept++;
        for (let c = 0; c < 3; c++) if (cut.data[p * 4 + c] !== original.data[p * 3 + c]) wrong++;
      }
      expect(wrong).toBe(0);
      expect(kept).toBeGreaterThan(0);
      const shown = await decodeImage(await readFile(overlay!));
      expect([shown.width, shown.height]).toEqual([width, height]);
    }

    // The summary on stderr, for people; no progress bar when stderr is not a terminal.
    expect(r.stderr).not.toContain('\r');
    expect(r.stderr).toMatch(/^edgeseg: 5 of 8 images segmented in [\d.]+ s \([\d.]+ images\/s\), 3 failed; outputs in /);
    expect(r.stderr).toContain(
      `  ${join(input, 'broken.jpg')}: the bytes are not an image edgeseg decodes (JPEG, PNG, WebP, GIF, AVIF or TIFF) [IMAGE_FORMAT_UNSUPPORTED]`,
    );
    expect(r.stderr).toContain(
      `  ${join(input, 'stream.png')}: could not read ${join(input, 'stream.png')}: not a regular file (a FIFO) [IMAGE_SOURCE_INVALID]`,
    );
    expect(r.stderr).toContain(`skipped 1 file not named as images: ${join(input, 'notes.txt')}`);

    // The single-image command writes the same mask as the batch for the same file.
    const single = await runCli(['segment', join(input, 'a.png'), '--model', MODEL]);
    expect(single.code).toBe(0);
    expect(
      Buffer.compare(base64ToBytes(parseJson<SegmentationPayload>(single.stdout).segmentation_mask), await readFile(join(out, 'a.png'))),
    ).toBe(0);
  });

  // Root reads and writes whatever the modes say: as root, the CLI runs as "nobody", for whom they hold.
  // That needs node and this checkout readable by others; where they are not (a checkout under /root),
  // the test is skipped, and the dangling link, FIFO and deleted-file tests above still stand.
  const user = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
  const canRunAsUser =
    spawnSync(process.execPath, ['-e', `require('fs').accessSync(${JSON.stringify(join(ROOT, 'bin', 'edgeseg.js'))})`], user).status === 0;
  test.skipIf(!canRunAsUser)('chmod 000 files and folders, and an --out-dir without write permission, for a user they stop', async () => {
    const base = at('modes');
    const input = join(base, 'in');
    await mkdir(join(input, 'locked-folder'), { recursive: true });
    await copyFile(SMALL, join(input, 'a.png'));
    await copyFile(SMALL, join(input, 'locked.png'));
    await copyFile(SMALL, join(input, 'locked-folder', 'x.png'));
    await chmod(join(input, 'locked.png'), 0o000);
    await chmod(join(input, 'locked-folder'), 0o000);
    await mkdir(join(base, 'out'));
    await mkdir(join(base, 'read-only'));
    for (const dir of [root, base, input, join(base, 'out')]) await chmod(dir, 0o777);
    await chmod(join(base, 'read-only'), 0o555);

    // Modes back afterwards, so that a user other than root can remove the folders.
    onTestFinished(() =>
      Promise.all([chmod(join(input, 'locked-folder'), 0o755), chmod(join(base, 'read-only'), 0o755)]).then(() => undefined),
    );

    const denied = await runCli(['segment', input, '--out-dir', join(base, 'read-only', 'masks'), '--model', '/nonexistent-model'], user);
    expect(denied.code).toBe(2);
    expect(denied.stderr).toContain('EACCES');

    const r = await runCli(['segment', input, '--out-dir', join(base, 'out'), '--model', MODEL, '--json'], user);
    expect(r.code).toBe(3);
    const summary = parseJson<BatchSummary>(r.stdout);
    expect(summary.failed.map((f) => [f.path, f.code, f.message.includes('EACCES')])).toEqual([
      [join(input, 'locked-folder'), 'IMAGE_SOURCE_INVALID', true],
      [join(input, 'locked.png'), 'IMAGE_SOURCE_INVALID', true],
    ]);
    expect(Buffer.compare(await readFile(join(base, 'out', 'a.png')), await maskOf(SMALL))).toBe(0);
  });

  test('a file deleted while the batch runs is reported and the rest are segmented', async () => {
    const input = at('deleted');
    const out = at('deleted-out');
    await mkdir(input);
    await mkdir(out);
    for (const name of ['a.png', 'b.png', 'c.png']) await copyFile(SMALL, join(input, name));
    // a's mask and cutout are FIFOs, which the CLI writes one after the other. Once this test has read the
    // mask to its end, the CLI is still busy with a (its cutout's FIFO waits for this test), and with
    // --concurrency 1 b has not been started (a slot frees only when the CLI asks for the next result):
    // deleting b there deletes it mid-run at a known point, with no timing involved. (One FIFO would not
    // do: the pipe's buffer takes the whole mask, so its writer does not wait for the reader.)
    execFileSync('mkfifo', [join(out, 'a.png'), join(out, 'a.cutout.png')]);
    const run = runCli(['segment', input, '--out-dir', out, '--model', MODEL, '--concurrency', '1', '--cutout', '--json']);
    const mask = await readFile(join(out, 'a.png'));
    await rm(join(input, 'b.png'));
    expect((await readFile(join(out, 'a.cutout.png'))).subarray(1, 4).toString()).toBe('PNG');
    const r = await run;
    expect(r.code).toBe(3);
    const summary = parseJson<BatchSummary>(r.stdout);
    expect(summary.failed.map((f) => [f.path, f.code])).toEqual([[join(input, 'b.png'), 'IMAGE_SOURCE_INVALID']]);
    expect(summary.failed[0]!.message).toContain('ENOENT');
    expect(summary.written.map((w) => w.path)).toEqual([join(input, 'a.png'), join(input, 'c.png')]);
    expect(Buffer.compare(mask, await maskOf(SMALL))).toBe(0);
    expect(Buffer.compare(await readFile(join(out, 'c.png')), await maskOf(SMALL))).toBe(0);
  });

  test('Ctrl-C stops the batch after the image in hand, prints the summary and exits 130', async () => {
    const input = at('interrupted');
    const out = at('interrupted-out');
    await mkdir(input);
    await mkdir(out);
    for (const name of ['a.png', 'b.png', 'c.png']) await copyFile(SMALL, join(input, name));
    // As above: once a's mask is read, the CLI is busy with a until its cutout is read; SIGINT lands there.
    execFileSync('mkfifo', [join(out, 'a.png'), join(out, 'a.cutout.png')]);
    let child: ChildProcess | undefined;
    const run = runCli(['segment', input, '--out-dir', out, '--model', MODEL, '--concurrency', '1', '--cutout', '--json'], {
      onSpawn: (c) => (child = c),
    });
    await readFile(join(out, 'a.png'));
    child!.kill('SIGINT');
    await readFile(join(out, 'a.cutout.png'));
    const r = await run;
    expect(r.code).toBe(130);
    const summary = parseJson<BatchSummary>(r.stdout);
    expect([summary.interrupted, summary.images, summary.segmented, summary.failed]).toEqual([true, 3, 1, []]);
    expect(r.stderr).toMatch(/^edgeseg: interrupted: 1 of 3 images segmented in /);
  });

  test('globs (quoted, so edgeseg expands them) and files; all good: exit 0, nothing on stdout without --json', async () => {
    const input = at('globbed');
    await mkdir(join(input, 'x', 'y'), { recursive: true });
    await copyFile(PNG, join(input, 'x', 'y', 'one.png'));
    await copyFile(WEBP, join(input, 'x', 'two.webp'));
    await copyFile(JPEG, join(input, 'x', 'three.jpg'));
    const r = await runCli(['segment', 'globbed/**/*.{png,webp}', 'globbed/x/three.jpg', '--out-dir', 'globbed-out', '--model', MODEL], {
      cwd: root,
    });
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBe(0);
    expect(r.stderr).toMatch(/^edgeseg: 3 of 3 images segmented in /);
    expect(Buffer.compare(await readFile(at('globbed-out', 'x', 'y', 'one.png')), await maskOf(PNG))).toBe(0);
    expect(Buffer.compare(await readFile(at('globbed-out', 'x', 'two.png')), await maskOf(WEBP))).toBe(0);
    expect(Buffer.compare(await readFile(at('globbed-out', 'three.png')), await maskOf(JPEG))).toBe(0);
  });

  test('an --out-dir that cannot be written: exit 2 before any work (not even the model load)', async () => {
    const file = at('a-regular-file');
    await writeFile(file, 'x');
    // A path under a regular file fails for root too, whom directory modes do not stop.
    for (const outDir of [join(file, 'masks'), file]) {
      const r = await runCli(['segment', PNG, '--out-dir', outDir, '--model', '/nonexistent-model']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`edgeseg: --out-dir ${outDir} cannot be written:`);
      expect(r.stdout.length).toBe(0);
    }
    expect((await stat(file)).isFile()).toBe(true);
  });

  test('single image: --cutout --edges hard with --feather writes the feathered cutout of the same mask', async () => {
    const file = at('single-cutout.png');
    const r = await runCli(['segment', PNG, '--model', MODEL, '--cutout', file, '--edges', 'hard', '--feather', '2', '--quiet']);
    expect(r.code).toBe(0);
    const { classIds, width, height } = decodeMaskPng(await maskOf(PNG));
    const expected = cutoutRgba(await decodeImage(await readFile(PNG)), maskAlpha(classIds, 0), 2);
    const cut = await decodeRgba(file);
    expect([cut.width, cut.height]).toEqual([width, height]);
    expect(Buffer.compare(Buffer.from(cut.data), Buffer.from(expected))).toBe(0);
    // Feathered: alpha between 0 and 255 somewhere, i.e. along the edges.
    expect(expected.some((v, i) => i % 4 === 3 && v > 0 && v < 255)).toBe(true);
  });

  test.each([
    [['segment', PNG, SMALL], 'for several, a folder or a glob, give --out-dir'],
    [['segment', '--out-dir', 'x'], 'at least one file'],
    [['segment', '.'], '. is a folder; give --out-dir'],
    [['segment', PNG, '--out-dir', 'x', '--concurrency', '0'], '--concurrency must be a whole number'],
    [['segment', PNG, '--out-dir', 'x', '--feather=-2'], '--feather must be a whole number'],
    [['segment', PNG, '--cutout', 'cut.jpg'], '--cutout needs a format with alpha'],
    [['segment', PNG, '--cutout', 'cut.png', '--edges', 'smooth'], '--edges must be soft or hard'],
  ])('usage error: edgeseg %j → 2', async (args, message) => {
    // In this process (main() is what bin/edgeseg.js runs): a usage error never gets as far as the model.
    let err = '';
    expect(await main(args, { out: () => undefined, err: (t) => (err += t) })).toBe(2);
    expect(err).toContain(message);
  });

  test('two files with one relative path under two folders: exit 2, naming both, nothing written', async () => {
    for (const dir of ['p1', 'p2']) {
      await mkdir(at(dir));
      await copyFile(SMALL, at(dir, 'same.png'));
    }
    const r = await runCli(['segment', at('p1'), at('p2'), '--out-dir', at('clash-out'), '--model', '/nonexistent-model']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${at('clash-out', 'same.png.png')} ← ${at('p1', 'same.png')}, ${at('p2', 'same.png')}`);
    expect(await readdir(at('clash-out'))).toEqual([]);
  });

  test('on a terminal, a progress bar on stderr, redrawn in place and cleared before the summary', async () => {
    let err = '';
    const code = await main(['segment', PNG, SMALL, '--out-dir', at('tty-out'), '--model', MODEL], {
      out: () => undefined,
      err: (s) => (err += s),
      errIsTTY: true,
      errColumns: () => 100,
    });
    expect(code).toBe(0);
    const frames = err.split('\r').filter((f) => f.startsWith('['));
    expect(frames.map((f) => f.match(/\] (\d\/2)/)?.[1])).toEqual(['0/2', '1/2', '2/2']);
    expect(err).toContain('\r\x1b[Kedgeseg: 2 of 2 images segmented');
  });
});

async function decodeRgba(file: string) {
  const { default: sharp } = await import('sharp');
  const { data, info } = await sharp(file).raw().toBuffer({ resolveWithObject: true });
  expect(info.channels).toBe(4);
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

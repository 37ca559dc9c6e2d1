import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { assignOutputs, listBatchInputs, type BatchInput } from '../../../src/cli/batch-inputs.js';

let root: string;
const at = (...p: string[]) => join(root, ...p);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'edgeseg-inputs-'));
  for (const dir of ['in/trip/day2', 'in/.cache', 'in/empty', 'other', 'out']) await mkdir(at(dir), { recursive: true });
  for (const file of [
    'in/b.jpg',
    'in/a.PNG',
    'in/notes.txt',
    'in/trip/c.jpeg',
    'in/trip/day2/d.webp',
    'in/.cache/e.jpg',
    'other/a.png',
    'out/old.png',
  ]) {
    await writeFile(at(file), 'x');
  }
  await symlink('/nonexistent-target', at('in/gone.jpg'));
  await symlink(at('in'), at('in/trip/loop'));
  execFileSync('mkfifo', [at('in/stream.png')]);
  execFileSync('mkfifo', [at('in/pipe.fifo')]);
});
afterAll(() => rm(root, { recursive: true, force: true }));

const summary = (inputs: BatchInput[]) => inputs.map((i) => [i.relative, i.error?.code ?? 'ok']);

describe('listBatchInputs', () => {
  test('a folder: its image files in name order, folders below it, links followed once, hidden names left out; the rest skipped; FIFOs and dangling links reported, never opened', async () => {
    const { inputs, skipped } = await listBatchInputs([at('in')]);
    expect(summary(inputs)).toEqual([
      ['a.PNG', 'ok'],
      ['b.jpg', 'ok'],
      ['gone.jpg', 'IMAGE_SOURCE_INVALID'],
      ['stream.png', 'IMAGE_SOURCE_INVALID'],
      ['trip/c.jpeg', 'ok'],
      ['trip/day2/d.webp', 'ok'],
    ]);
    expect(inputs[0]!.path).toBe(at('in', 'a.PNG'));
    expect(inputs[2]!.error!.message).toMatch(/symbolic link to nothing/);
    expect(inputs[3]!.error!.message).toMatch(/not a regular file \(a FIFO\)/);
    expect(skipped).toEqual([at('in/notes.txt'), at('in/pipe.fifo')]);
  });

  test('globs: relative to their fixed folder, hidden names only when asked for, depth as written', async () => {
    expect(summary((await listBatchInputs([at('in/**/*.{jpg,jpeg}')])).inputs)).toEqual([
      ['b.jpg', 'ok'],
      ['gone.jpg', 'IMAGE_SOURCE_INVALID'],
      ['trip/c.jpeg', 'ok'],
    ]);
    expect(summary((await listBatchInputs([at('in/*')])).inputs).map(([r]) => r)).toEqual([
      'a.PNG',
      'b.jpg',
      'gone.jpg',
      'notes.txt',
      'pipe.fifo',
      'stream.png',
    ]);
    expect(summary((await listBatchInputs([at('in/trip/*/*.webp')])).inputs)).toEqual([['day2/d.webp', 'ok']]);
    expect(summary((await listBatchInputs([at('in/.*/*.jpg')])).inputs)).toEqual([['.cache/e.jpg', 'ok']]);
    const none = (await listBatchInputs([at('in/*.gif')])).inputs;
    expect(none.map((i) => [i.path, i.error?.message])).toEqual([[at('in/*.gif'), `no file matches ${at('in/*.gif')}`]]);
  });

  test('the output folder is walked when it is the folder named', async () => {
    expect(summary((await listBatchInputs([at('out')], { exclude: at('out') })).inputs)).toEqual([['old.png', 'ok']]);
  });

  test('files as named, each file once, a missing one kept for reading to report, an empty folder reported, the output folder not walked', async () => {
    const { inputs } = await listBatchInputs(
      [at('in/b.jpg'), at('in/notes.txt'), at('missing.jpg'), at('in/trip/../b.jpg'), at('in/empty'), root],
      { exclude: at('out') },
    );
    expect(inputs.slice(0, 4).map((i) => [i.path, i.relative, i.error?.code])).toEqual([
      [at('in/b.jpg'), 'b.jpg', undefined],
      [at('in/notes.txt'), 'notes.txt', undefined],
      [at('missing.jpg'), 'missing.jpg', undefined],
      [at('in/empty'), '', 'IMAGE_SOURCE_INVALID'],
    ]);
    // The root walk finds the rest of in/ and other/, but not b.jpg again and nothing in out/.
    expect(inputs.slice(4).map((i) => i.relative)).toEqual([
      'in/a.PNG',
      'in/gone.jpg',
      'in/stream.png',
      'in/trip/c.jpeg',
      'in/trip/day2/d.webp',
      'other/a.png',
    ]);
  });
});

describe('assignOutputs', () => {
  const input = (path: string, relative: string): BatchInput => ({ path, relative });
  test('the relative path with its extension replaced by each suffix', () => {
    const plan = assignOutputs([input('p/trip/a.jpg', 'trip/a.jpg'), { ...input('p/x.jpg', 'x.jpg'), error: undefined }], 'masks', [
      '.png',
      '.cutout.png',
    ]);
    expect(plan).toEqual({
      outputs: [
        ['masks/trip/a.png', 'masks/trip/a.cutout.png'],
        ['masks/x.png', 'masks/x.cutout.png'],
      ],
      clashes: [],
    });
  });

  test('same stem in one folder: both keep their extension; nothing is written over an input', () => {
    const plan = assignOutputs(
      [input('p/a.jpg', 'a.jpg'), input('p/a.png', 'a.png'), input('p/b.png', 'b.png'), input('p/c.gif', 'c.gif')],
      'p',
      ['.png'],
    );
    expect(plan.outputs).toEqual([['p/a.jpg.png'], ['p/a.png.png'], ['p/b.png.png'], ['p/c.png']]);
    expect(plan.clashes).toEqual([]);
  });

  test('two files with one relative path under two arguments: a clash to refuse; unreadable inputs write nothing', () => {
    const bad = { ...input('q', ''), error: new Error('x') as never };
    const plan = assignOutputs([input('x/a.jpg', 'a.jpg'), bad, input('y/a.jpg', 'a.jpg')], '/o', ['.png']);
    expect(plan.outputs[1]).toEqual([]);
    expect(plan.clashes).toEqual([{ file: '/o/a.jpg.png', inputs: ['x/a.jpg', 'y/a.jpg'] }]);
  });
});

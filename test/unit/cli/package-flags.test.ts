// Every bad flag of `edgeseg package`, through the command line's own entry (`main`, which bin/edgeseg.js
// runs): exit code 2, a message that says what to write, and no folder written. The built command itself is
// run on a sample of them in test/e2e/cli-package.test.ts.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { main } from '../../../src/cli/cli.js';
import { dynamicMeanModel } from '../../fixtures/tiny-graphs.js';
import { TINY } from '../../helpers/paths.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'edgeseg-package-flags-'));
  await writeFile(join(dir, 'dynamic.onnx'), dynamicMeanModel({ sigmoid: true }));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function run(args: string[]) {
  let out = '';
  let err = '';
  const code = await main(['package', ...args], { out: (s) => (out += s), err: (s) => (err += s) });
  return { code, out, err };
}

const SIGMOID = TINY('forms/sigmoid/weights.onnx');
const OK = ['--classes', 'background,shape', '--resize', 'letterbox', '--color', 'rgb', '--scale', '255', '--imagenet'];
/** OK with `flag` removed, and given `value` where one is. */
const without = (flag: string, value?: string) => {
  const i = OK.indexOf(flag);
  const rest = [...OK.slice(0, i), ...OK.slice(i + (flag === '--imagenet' ? 1 : 2))];
  return value === undefined ? rest : [...rest, flag, value];
};

test.each<[string, string[], string]>([
  ['no model', [...OK], 'package takes one model file: edgeseg package model.onnx --classes background,…'],
  ['two models', [SIGMOID, SIGMOID, ...OK], 'package takes one model file'],
  ['an unknown flag', [SIGMOID, ...OK, '--frobnicate'], "Unknown option '--frobnicate'"],
  ['no --classes', [SIGMOID, ...without('--classes')], 'package needs --classes: the class names in the order of the output channels'],
  [
    'no background',
    [SIGMOID, ...without('--classes', 'person,car')],
    "--classes has no background class (person, car): the platform requires one, and edgeseg gives it to pixels below the confidence threshold; add it where the model's channel for it is, e.g. --classes background,person",
  ],
  ['background alone', [SIGMOID, ...without('--classes', 'background')], '--classes needs background and at least one class'],
  ['an empty name', [SIGMOID, ...without('--classes', 'background,,a')], '--classes has an empty name: "background,,a"'],
  ['a name twice', [SIGMOID, ...without('--classes', 'background,a,A')], '--classes names "A" twice'],
  ['a line break in a name', [SIGMOID, ...without('--classes', 'background,a\nb')], '--classes names must not hold control characters'],
  [
    '257 classes',
    [SIGMOID, ...without('--classes', ['background', ...Array.from({ length: 256 }, (_, i) => `c${i}`)].join(','))],
    '--classes lists 257 names; an 8-bit mask holds at most 256',
  ],
  [
    'no preprocessing flags',
    [SIGMOID, '--classes', 'background,shape'],
    "package needs how the model saw images in training, which its graph does not say: --resize stretch|letterbox|center-crop|fit-longer-edge; --color rgb|bgr; --scale 255|none; --imagenet, --mean r,g,b --std r,g,b, or --no-normalization. The model's card or its preprocessing code says them",
  ],
  ['no --resize', [SIGMOID, ...without('--resize')], 'does not say: --resize stretch|letterbox|center-crop|fit-longer-edge. '],
  ['no --color', [SIGMOID, ...without('--color')], 'does not say: --color rgb|bgr. '],
  ['no --scale', [SIGMOID, ...without('--scale')], 'does not say: --scale 255|none. '],
  [
    'no normalisation flag',
    [SIGMOID, ...without('--imagenet')],
    'does not say: --imagenet, --mean r,g,b --std r,g,b, or --no-normalization. ',
  ],
  [
    'an unknown --resize',
    [SIGMOID, ...without('--resize', 'squash')],
    '--resize must be stretch, letterbox, center-crop or fit-longer-edge, got "squash"',
  ],
  ['an unknown --color', [SIGMOID, ...without('--color', 'rgba')], '--color must be rgb or bgr, got "rgba"'],
  ['--scale 0', [SIGMOID, ...without('--scale', '0')], '--scale must be a number above 0 (255: pixels ÷255) or none, got 0'],
  ['--scale lots', [SIGMOID, ...without('--scale', 'lots')], '--scale must be a number, got "lots"'],
  ['--mean without --std', [SIGMOID, ...without('--imagenet'), '--mean', '0,0,0'], '--mean and --std go together'],
  ['--std without --mean', [SIGMOID, ...without('--imagenet'), '--std', '1,1,1'], '--mean and --std go together'],
  [
    '--mean of two numbers',
    [SIGMOID, ...without('--imagenet'), '--mean', '1,2', '--std', '1,1,1'],
    '--mean takes three numbers, one for each channel',
  ],
  ['--mean with a word', [SIGMOID, ...without('--imagenet'), '--mean', '1,x,2', '--std', '1,1,1'], '--mean takes three numbers'],
  [
    '--std with a 0',
    [SIGMOID, ...without('--imagenet'), '--mean', '0,0,0', '--std', '0,1,1'],
    '--std must be above 0 in each channel, got 0,1,1',
  ],
  [
    '--imagenet and --mean',
    [SIGMOID, ...OK, '--mean', '0,0,0', '--std', '1,1,1'],
    'give one of --imagenet, --mean with --std, or --no-normalization',
  ],
  [
    '--imagenet and --no-normalization',
    [SIGMOID, ...OK, '--no-normalization'],
    'give one of --imagenet, --mean with --std, or --no-normalization',
  ],
  ['--padding 256', [SIGMOID, ...OK, '--padding', '256'], '--padding must be a whole number 0–255, got 256'],
  ['--padding -1', [SIGMOID, ...OK, '--padding=-1'], '--padding must be a whole number 0–255, got -1'],
  ['--padding 1.5', [SIGMOID, ...OK, '--padding', '1.5'], '--padding must be a whole number 0–255, got 1.5'],
  [
    '--padding with stretch',
    [SIGMOID, ...without('--resize', 'stretch'), '--padding', '9'],
    "--padding is the colour of a letterbox's edges; --resize stretch adds none",
  ],
  ['--padding with center-crop', [SIGMOID, ...without('--resize', 'center-crop'), '--padding', '9'], '--resize center-crop adds none'],
  [
    '--padding with fit-longer-edge',
    [SIGMOID, ...without('--resize', 'fit-longer-edge'), '--padding', '9'],
    "--padding does not apply to --resize fit-longer-edge, which the platform runs as a letterbox padded by the architecture's rule (0; 127 for --architecture yolo26): give --resize letterbox --padding N for another value",
  ],
  ['--size 320', [SIGMOID, ...OK, '--size', '320'], '--size is the model\'s input width×height, each 1–8192 (--size 320x320), got "320"'],
  ['--size 0x10', [SIGMOID, ...OK, '--size', '0x10'], 'got "0x10"'],
  ['--size 9000x10', [SIGMOID, ...OK, '--size', '9000x10'], 'got "9000x10"'],
  ['--size 1.5x2', [SIGMOID, ...OK, '--size', '1.5x2'], 'got "1.5x2"'],
  [
    '--size against a fixed input',
    [SIGMOID, ...OK, '--size', '64x64'],
    `--size 64x64 differs from the model's fixed input "image" float32 [1, 3, 40, 40] (40x40): leave --size out`,
  ],
  [
    '--divisible on a fixed input',
    [SIGMOID, ...OK, '--divisible', '32'],
    `the model's input "image" float32 [1, 3, 40, 40] is fixed at 40x40: it runs at no other size, so --divisible and --any-size do not apply`,
  ],
  ['--any-size on a fixed input', [SIGMOID, ...OK, '--any-size'], 'is fixed at 40x40: it runs at no other size'],
  ['--divisible 0', [SIGMOID, ...OK, '--divisible', '0'], '--divisible must be a whole number 1–8192, got 0'],
  ['--divisible and --any-size', [SIGMOID, ...OK, '--divisible', '8', '--any-size'], 'give --divisible N or --any-size, not both'],
  [
    '--architecture resnet',
    [SIGMOID, ...OK, '--architecture', 'resnet'],
    '--architecture must be deep-lab-v3-plus or yolo26, got "resnet"',
  ],
  ['--input-layout nhw', [SIGMOID, ...OK, '--input-layout', 'nhw'], '--input-layout must be nchw or nhwc, got "nhw"'],
  ['--output-layout chw', [SIGMOID, ...OK, '--output-layout', 'chw'], '--output-layout must be nchw or nhwc, got "chw"'],
  ['--post-processing nms', [SIGMOID, ...OK, '--post-processing', 'nms'], '--post-processing must be sigmoid or softmax, got "nms"'],
  [
    '--fused alone',
    [SIGMOID, ...OK, '--fused'],
    '--fused says the graph applies the --post-processing activation: give --post-processing sigmoid or softmax with it',
  ],
  ['an empty --output', [SIGMOID, ...OK, '--output='], '--output names one of the model’s outputs'],
  [
    'a folder as the model',
    [TINY('forms/sigmoid'), ...OK],
    `is a folder: edgeseg package takes the model's .onnx file (a folder that is a package already: edgeseg info --model`,
  ],
])('%s', async (_, args, message) => {
  const target = join(dir, 'out');
  const r = await run([...args, '--out', target]);
  expect(r.code).toBe(2);
  expect(r.err).toContain(message);
  expect(r.err).toMatch(/^edgeseg: [^\n]*\nRun "edgeseg --help" for usage\.\n$/);
  expect(r.out).toBe('');
  expect(existsSync(target)).toBe(false);
});

const DYNAMIC = ['--classes', 'background,bright', '--resize', 'stretch', '--color', 'rgb', '--scale', 'none', '--no-normalization'];
test.each<[string, string[], string]>([
  [
    'no --size',
    [],
    `the model's input "x" float32 [?, 3, ?, ?] fixes no size: give the size it was trained at, --size WxH (width×height, e.g. --size 640x640)`,
  ],
  [
    'no --divisible or --any-size',
    ['--size', '32x24'],
    `the model's input "x" float32 [?, 3, ?, ?] takes any size as far as its graph says, but many models take only multiples of a stride (text detectors: 32): give --divisible N, or --any-size where any size works`,
  ],
  [
    'a --size that is not a multiple of --divisible',
    ['--size', '30x24', '--divisible', '8'],
    '--size 30x24 is not a multiple of --divisible 8',
  ],
])('a dynamic model with %s', async (_, more, message) => {
  const target = join(dir, 'out');
  const r = await run([join(dir, 'dynamic.onnx'), ...DYNAMIC, ...more, '--out', target]);
  expect(r.code).toBe(2);
  expect(r.err).toContain(message);
  expect(existsSync(target)).toBe(false);
});

test('--help prints the command’s usage, exit 0; edgeseg --help lists the command', async () => {
  const r = await run(['--help']);
  expect(r.code).toBe(0);
  expect(r.out).toMatch(/^ {2}edgeseg package <model\.onnx> --classes background,<class>,… \[--out <dir>\] \[--force\]\n/);
  let help = '';
  expect(await main(['--help'], { out: (s) => (help += s), err: () => undefined })).toBe(0);
  expect(help).toContain(r.out.trimEnd());
});

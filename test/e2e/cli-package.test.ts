// `edgeseg package` and `edgeseg info` on models as they are shipped (test/fixtures/models/forms, and dynamic
// and undecidable graphs built here), run as a user runs the built command: the package written holds what was
// asked, reads back to its twin's settings, segments as its logits twin does, and every bad flag and refused
// model is a coded error that writes nothing.
import { existsSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readFile, readdir, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parseInferenceConfig } from '../../src/model/index.js';
import { parseModelReadingConfig } from '../../src/model/inference-config.js';
import { parseModelPackage, type ModelForm } from '../../src/model/index.js';
import { createSegmenter, rawFromPayload, readPackageDir } from '../../src/node/index.js';
import type { SegmentationPayload } from '../../src/payload/index.js';
import { compareClassIds, fixturePath, loadUint8, manifest } from '../fixtures/reference/fixtures.js';
import { dynamicMeanModel, unknownLayoutModel } from '../fixtures/tiny-graphs.js';
import { ensureBuilt, runCli } from '../helpers/built-cli.js';
import { parseJson } from '../helpers/json.js';
import { TINY } from '../helpers/paths.js';

const FORM = (name: string) => TINY(`forms/${name}`);
const IMAGENET = [
  [0.485, 0.456, 0.406],
  [0.229, 0.224, 0.225],
];
/** How the twins saw images: letterboxed (black edges for tiny-legacy, grey for tiny-binary), RGB, ÷255, ImageNet. */
const FLAGS = ['--resize', 'letterbox', '--color', 'rgb', '--scale', '255', '--imagenet'];
const TWINS = {
  'tiny-legacy': { classes: 'background,circle,rectangle,triangle,star', flags: FLAGS, width: 64, height: 48, padding: 0 },
  'tiny-binary': { classes: 'background,shape', flags: [...FLAGS, '--padding', '127'], width: 40, height: 40, padding: 127 },
};

const networkInput = (twin: keyof typeof TWINS) => ({
  training_input_size: { height: TWINS[twin].height, width: TWINS[twin].width },
  dynamic_spatial_size_supported: false,
  color_mode: 'rgb',
  resize_mode: 'letterbox',
  padding_value: TWINS[twin].padding,
  input_channels: 3,
  scaling_factor: 255,
  normalization: IMAGENET,
});

/** Each form, its logits twin, and what inference_config.json gets beyond network_input. */
const FORMS: { name: string; twin: keyof typeof TWINS; extra: Record<string, unknown>; tolerance?: number }[] = [
  { name: 'sigmoid', twin: 'tiny-binary', extra: { post_processing: { type: 'sigmoid', fused: true } } },
  { name: 'sigmoid-resize', twin: 'tiny-binary', extra: { post_processing: { type: 'sigmoid', fused: true } } },
  { name: 'softmax', twin: 'tiny-legacy', extra: { post_processing: { type: 'softmax', fused: true } } },
  // Log-probabilities are scores whose softmax is the model's: the platform applies it, so not fused.
  { name: 'log-softmax', twin: 'tiny-legacy', extra: { post_processing: { type: 'softmax', fused: false } } },
  { name: 'argmax', twin: 'tiny-legacy', extra: {} },
  { name: 'softmax-argmax', twin: 'tiny-legacy', extra: {} },
  { name: 'nhwc', twin: 'tiny-legacy', extra: {} },
  { name: 'nhwc-softmax', twin: 'tiny-legacy', extra: { post_processing: { type: 'softmax', fused: true } } },
  { name: 'float16-io', twin: 'tiny-legacy', extra: {}, tolerance: 0.002 },
  { name: 'second-output', twin: 'tiny-legacy', extra: { network_output: { name: 'logits' } } },
];

interface InfoJson {
  classes: string[];
  architecture: string | null;
  form: ModelForm;
  dynamicInput: { supported: boolean; mode: unknown };
  warnings: string[];
}

let dir: string;
const out = (name: string) => join(dir, name);
const readJson = async (path: string) => JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
const formOf = async (folder: string) => parseModelPackage(await readPackageDir(folder)).spec.form;

const DYNAMIC_FLAGS = '--classes background,bright --resize stretch --color rgb --scale 255 --mean 0.5,0.5,0.5 --std 1,1,1'.split(' ');
beforeAll(async () => {
  ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'edgeseg-package-'));
  await mkdir(out('models'));
  await writeFile(out('models/dynamic-sigmoid.onnx'), dynamicMeanModel({ sigmoid: true }));
  await writeFile(out('models/dynamic-logits.onnx'), dynamicMeanModel({ sigmoid: false }));
  await writeFile(out('models/unknown-layout.onnx'), unknownLayoutModel());
  // A TensorFlow Lite file's start: a FlatBuffer offset, then its identifier TFL3.
  await writeFile(out('models/selfie.onnx'), Uint8Array.from([0x1c, 0, 0, 0, ...Buffer.from('TFL3'), ...new Array<number>(64).fill(0)]));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('edgeseg package on each form of test/fixtures/models/forms', () => {
  test.each(FORMS)('$name: the package holds what was asked, and reads as the fixture does', async ({ name, twin, extra }) => {
    const target = out(name);
    const r = await runCli([
      'package',
      join(FORM(name), 'weights.onnx'),
      '--classes',
      TWINS[twin].classes,
      ...TWINS[twin].flags,
      '--out',
      target,
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const text = r.stdout.toString();
    expect(text.split('\n')[0]).toBe(`wrote ${target}: weights.onnx, class_names.txt, inference_config.json`);
    expect(text).toMatch(/^package: +current export \(inference_config\.json\)$/m);
    expect(text).toContain(`run it: edgeseg segment photo.jpg --model ${target}`);
    expect((await readdir(target)).sort()).toEqual(['class_names.txt', 'inference_config.json', 'weights.onnx']);
    // Every field the platform's schema requires, and the graph's form as the platform's post_processing.
    const config = await readJson(join(target, 'inference_config.json'));
    expect(config).toEqual({ network_input: networkInput(twin), ...extra });
    expect(await readFile(join(target, 'class_names.txt'), 'utf8')).toBe(`${TWINS[twin].classes.split(',').join('\n')}\n`);
    expect((await readFile(join(target, 'weights.onnx'))).equals(await readFile(join(FORM(name), 'weights.onnx')))).toBe(true);

    // Parsed back: the twin's preprocessing, and the graph read as the fixture's own package reads it.
    const bytes = await readFile(join(target, 'inference_config.json'));
    const twinSpec = parseModelPackage(await readPackageDir(TINY(twin))).spec;
    expect(parseInferenceConfig(bytes)).toEqual(twinSpec.preprocess);
    const reading = parseModelReadingConfig(bytes);
    expect(reading.postProcessing).toEqual(extra.post_processing ?? null);
    expect(reading.outputName).toBe(name === 'second-output' ? 'logits' : null);
    expect(reading.dynamicInput).toEqual({ supported: false, mode: null });
    expect(await formOf(target)).toEqual(await formOf(FORM(name)));

    // What it printed is what edgeseg will do with it: the graph's reading and the changes.
    const form = await formOf(target);
    expect(text).toContain(`model output:  ${JSON.stringify(form.output.name)} ${form.output.type} ${form.output.layout.toUpperCase()}`);
    for (const change of form.changes) expect(text).toContain(`  - ${change}\n`);
  });

  test.each(['sigmoid', 'nhwc-softmax', 'second-output'])(
    'edgeseg info --json on the %s package: the form as read, the classes',
    async (name) => {
      const info = await runCli(['info', '--model', out(name), '--json']);
      expect(info.code).toBe(0);
      const json = parseJson<InfoJson>(info.stdout);
      expect(json.form).toEqual(await formOf(FORM(name)));
      expect(json.architecture).toBeNull();
      expect(json.dynamicInput).toEqual({ supported: false, mode: null });
      expect(json.warnings).toEqual([]);
    },
  );

  test('the text of package and info: the form, the outputs left out, the changes, the architecture, the dynamic input', async () => {
    const text = (await runCli(['info', '--model', out('second-output')])).stdout.toString();
    expect(text).toMatch(/^architecture: +not given \(model_config\.json\): run as the platform runs DeepLabV3\+$/m);
    expect(text).toMatch(/^dynamic input: no \(runs at 64×48\)$/m);
    expect(text).toMatch(/^model input: +"image" float32 NCHW$/m);
    expect(text).toMatch(
      /^model output: +"logits" float32 NCHW, 5 channels: logits \(scores before any activation, the platform’s form\)$/m,
    );
    expect(text).toMatch(/^other outputs: "colours" \(left out\)$/m);
    expect(text).toMatch(/^ {2}- its other outputs \("colours"\) are left out$/m);
    const sigmoid = (await runCli(['info', '--model', out('sigmoid')])).stdout.toString();
    expect(sigmoid).toMatch(/^model output: +"output" float32 NCHW, 1 channel: sigmoid probabilities$/m);
    expect(sigmoid).toMatch(/^other outputs: none$/m);
    const argmax = (await runCli(['info', '--model', out('argmax')])).stdout.toString();
    expect(argmax).toMatch(/^model output: +"output" int64 NCHW, channels known at run time: class ids \(an ArgMax\)$/m);
    const plain = (await runCli(['info', '--model', TINY('tiny-legacy')])).stdout.toString();
    expect(plain).toMatch(/^changes: +none \(the model runs as it is\)$/m);
  });

  test('--architecture writes model_config.json, which info shows; --json prints what was written', async () => {
    const target = out('yolo26');
    const r = await runCli([
      'package',
      join(FORM('softmax'), 'weights.onnx'),
      '--classes',
      TWINS['tiny-legacy'].classes,
      '--resize',
      'fit-longer-edge',
      '--color',
      'rgb',
      '--scale',
      'none',
      '--no-normalization',
      '--architecture',
      'yolo26',
      '--out',
      target,
      '--json',
    ]);
    expect(r.code).toBe(0);
    const printed = parseJson<{ out: string; files: string[]; inference_config: unknown; info: InfoJson & { preprocess: unknown } }>(
      r.stdout,
    );
    expect(printed.out).toBe(target);
    expect(printed.files).toEqual(['weights.onnx', 'class_names.txt', 'inference_config.json', 'model_config.json']);
    expect(printed.inference_config).toEqual(await readJson(join(target, 'inference_config.json')));
    expect(await readJson(join(target, 'model_config.json'))).toEqual({
      model_architecture: 'yolo26',
      task_type: 'semantic-segmentation',
      backend_type: 'onnx',
    });
    expect(printed.info.architecture).toBe('yolo26');
    // YOLO26's fit-longer-edge is a letterbox with grey edges, and no scale or normalisation was asked for.
    expect(printed.info.preprocess).toMatchObject({
      resize: { mode: 'letterbox', width: 64, height: 48, paddingValue: 127 },
      scalingFactor: null,
      normalization: null,
    });
    const info = (await runCli(['info', '--model', target])).stdout.toString();
    expect(info).toMatch(/^architecture: +yolo26$/m);
  });
});

describe('the round trip: a packaged form segments as its logits twin', () => {
  test.each(FORMS)('$name gives the reference mask of its twin on every case', async ({ name, twin, tolerance }) => {
    const seg = await createSegmenter({ model: out(name), numThreads: 1 });
    try {
      expect(seg.warnings).toEqual([]);
      for (const c of manifest.endToEnd.filter((e) => e.package === twin)) {
        const payload = await seg.segment(fixturePath(c.file), { confidence: c.confidence });
        const { wrong } = compareClassIds(rawFromPayload(payload).classIds, loadUint8(c.classIds), loadUint8(c.ambiguous));
        expect(wrong / (c.width * c.height), c.name).toBeLessThanOrEqual(tolerance ?? 0);
      }
    } finally {
      await seg.dispose();
    }
  });

  test('edgeseg segment --model <the written folder> prints the twin’s reference payload', async () => {
    const c = manifest.endToEnd.find((e) => e.package === 'tiny-binary')!;
    const r = await runCli(['segment', fixturePath(c.file), '--model', out('sigmoid'), '--confidence', String(c.confidence)]);
    expect(r.code).toBe(0);
    const payload = parseJson<SegmentationPayload>(r.stdout);
    expect(payload.class_map).toEqual({ '0': 'background', '1': 'shape' });
    expect(compareClassIds(rawFromPayload(payload).classIds, loadUint8(c.classIds), loadUint8(c.ambiguous)).wrong).toBe(0);
  });
});

describe('a dynamic model', () => {
  const model = () => out('models/dynamic-sigmoid.onnx');

  test('--size and --divisible: dynamic_spatial_size_supported and its mode are written, and info says so', async () => {
    const target = out('dynamic');
    const r = await runCli(['package', model(), ...DYNAMIC_FLAGS, '--size', '32x24', '--divisible', '8', '--out', target]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(await readJson(join(target, 'inference_config.json'))).toEqual({
      network_input: {
        training_input_size: { height: 24, width: 32 },
        dynamic_spatial_size_supported: true,
        dynamic_spatial_size_mode: { type: 'pad-to-be-divisible', value: 8 },
        color_mode: 'rgb',
        resize_mode: 'stretch',
        input_channels: 3,
        scaling_factor: 255,
        normalization: [
          [0.5, 0.5, 0.5],
          [1, 1, 1],
        ],
      },
      post_processing: { type: 'sigmoid', fused: true },
    });
    expect(r.stdout.toString()).toMatch(/^dynamic input: yes, sizes rounded up to a multiple of 8 \(32×24 declared\)$/m);
    const json = parseJson<InfoJson>((await runCli(['info', '--model', target, '--json'])).stdout);
    expect(json.dynamicInput).toEqual({ supported: true, mode: { type: 'pad-to-be-divisible', value: 8 } });
  });

  test('--any-size', async () => {
    const target = out('any-size');
    const r = await runCli(['package', model(), ...DYNAMIC_FLAGS, '--size', '30x20', '--any-size', '--out', target]);
    expect(r.code).toBe(0);
    const input = (await readJson(join(target, 'inference_config.json'))).network_input as Record<string, unknown>;
    expect([input.training_input_size, input.dynamic_spatial_size_supported, input.dynamic_spatial_size_mode]).toEqual([
      { height: 20, width: 30 },
      true,
      { type: 'any-size' },
    ]);
    expect(r.stdout.toString()).toMatch(/^dynamic input: yes, any size/m);
  });

  test('packaged with and without its final Sigmoid, it gives the same payload, with both classes in it', async () => {
    const logits = out('dynamic-logits');
    const r = await runCli([
      'package',
      out('models/dynamic-logits.onnx'),
      ...DYNAMIC_FLAGS,
      '--size',
      '32x24',
      '--divisible',
      '8',
      '--out',
      logits,
    ]);
    expect(r.code).toBe(0);
    expect((await readJson(join(logits, 'inference_config.json'))).post_processing).toBeUndefined();
    const image = fixturePath(manifest.endToEnd.find((e) => e.package === 'tiny-legacy')!.file);
    const [a, b] = await Promise.all(
      [out('dynamic'), logits].map(async (model) => {
        const r = await runCli(['segment', image, '--model', model]);
        expect(r.code).toBe(0);
        return parseJson<SegmentationPayload>(r.stdout);
      }),
    );
    expect(a).toEqual(b);
    expect(new Set(rawFromPayload(a!).classIds)).toEqual(new Set([0, 1]));
  });
});

describe('a model edgeseg refuses: the refusal, its exit code, and nothing written', () => {
  test('a final Clip: the message names post_processing and the flags that write it; with them, it packages', async () => {
    const target = out('clip');
    const args = [
      'package',
      join(FORM('clip'), 'weights.onnx'),
      '--classes',
      'background,shape',
      ...TWINS['tiny-binary'].flags,
      '--out',
      target,
    ];
    const r = await runCli(args);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^edgeseg: no output of the model fits 2 classes: "output" float32 \[1, 1, 10, 10\] ends in a Clip/);
    expect(r.stderr).toContain(
      'edgeseg package writes inference_config.json: give --post-processing sigmoid|softmax (with --fused where the output already holds probabilities) [MODEL_OUTPUT_SHAPE]\n',
    );
    expect(existsSync(target)).toBe(false);
    const ok = await runCli([...args, '--post-processing', 'sigmoid', '--fused']);
    expect(ok.code).toBe(0);
    expect((await readJson(join(target, 'inference_config.json'))).post_processing).toEqual({ type: 'sigmoid', fused: true });
    expect(ok.stdout.toString()).toContain('its sigmoid probabilities are turned back into logits');
  });

  test('an input whose layout the graph does not tell: --input-layout, written as network_input.layout', async () => {
    const target = out('layout');
    const flags = [...'--classes background,a,b --resize stretch --color rgb --scale 255 --no-normalization'.split(' '), '--out', target];
    const r = await runCli(['package', out('models/unknown-layout.onnx'), ...flags]);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('could be NCHW or NHWC and its graph does not tell: set network_input.layout');
    expect(r.stderr).toContain('give --input-layout nchw|nhwc [MODEL_INPUT_SHAPE]');
    expect(existsSync(target)).toBe(false);
    const ok = await runCli(['package', out('models/unknown-layout.onnx'), ...flags, '--input-layout', 'nchw', '--size', '3x16']);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect((await readJson(join(target, 'inference_config.json'))).network_input).toMatchObject({
      layout: 'nchw',
      training_input_size: { height: 16, width: 3 },
      dynamic_spatial_size_supported: false,
    });
  });

  test('--output names another output; one that fits no class count is refused with the fits', async () => {
    const target = out('colours');
    const base = [
      'package',
      join(FORM('second-output'), 'weights.onnx'),
      '--classes',
      TWINS['tiny-legacy'].classes,
      ...FLAGS,
      '--out',
      target,
    ];
    const r = await runCli([...base, '--output', 'colours']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/the output "colours" float32 \[1, 3, 12, 16\] has 3 \(as NCHW\) or 16 \(as NHWC\) channels/);
    expect(existsSync(target)).toBe(false);
    expect((await runCli([...base, '--output', 'nothing'])).stderr).toContain('names the output "nothing", which the model does not have');
  });

  test('a TensorFlow Lite file: MODEL_LOAD_FAILED naming the file and what it is', async () => {
    const target = out('tflite');
    const r = await runCli(['package', out('models/selfie.onnx'), '--classes', 'background,person', ...FLAGS, '--out', target]);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^edgeseg: .*selfie\.onnx is not an ONNX model: .*it is a TensorFlow Lite model: convert it to ONNX first/);
    expect(r.stderr).toMatch(/\[MODEL_LOAD_FAILED\]\n$/);
    expect(existsSync(target)).toBe(false);
  });

  test('classes that fit none of the output’s channels; a model file that is not there', async () => {
    const r = await runCli([
      'package',
      join(FORM('softmax'), 'weights.onnx'),
      '--classes',
      'background,a,b',
      ...FLAGS,
      '--out',
      out('three'),
    ]);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('has 5 channels (NCHW), which fit none of 3, 2 (no background channel) or 1');
    expect(existsSync(out('three'))).toBe(false);
    const missing = await runCli(['package', out('models/none.onnx'), '--classes', 'background,a', ...FLAGS]);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toMatch(/could not read .*none\.onnx: ENOENT.*\[MODEL_FILE_MISSING\]/);
  });

  test('a refusal leaves a folder that was there as it was', async () => {
    const target = out('kept');
    await mkdir(target);
    await writeFile(join(target, 'notes.txt'), 'mine');
    const r = await runCli(['package', join(FORM('clip'), 'weights.onnx'), '--classes', 'background,shape', ...FLAGS, '--out', target]);
    expect(r.code).toBe(4);
    expect(await readdir(target)).toEqual(['notes.txt']);
  });
});

describe('the package folder: --out, --force, links', () => {
  const args = (target: string, ...more: string[]) => [
    'package',
    join(FORM('sigmoid'), 'weights.onnx'),
    '--classes',
    'background,shape',
    ...FLAGS,
    '--out',
    target,
    ...more,
  ];

  test('by default, a folder named after the model, beside it', async () => {
    const model = out('models/u2netp.onnx');
    await writeFile(model, await readFile(join(FORM('sigmoid'), 'weights.onnx')));
    const r = await runCli(['package', model, '--classes', 'background,foreground', ...FLAGS]);
    expect(r.code).toBe(0);
    expect(r.stdout.toString().split('\n')[0]).toBe(`wrote ${out('models/u2netp')}: weights.onnx, class_names.txt, inference_config.json`);
    expect(await readFile(join(out('models/u2netp'), 'class_names.txt'), 'utf8')).toBe('background\nforeground\n');
    // Run from the model's folder, the folder is named so that --model takes it as a path.
    const here = await runCli(['package', 'u2netp.onnx', '--classes', 'background,foreground', ...FLAGS, '--out', 'again'], {
      cwd: out('models'),
    });
    expect(here.stdout.toString()).toContain('run it: edgeseg segment photo.jpg --model ./again\n');
  });

  test('a package there already is replaced only with --force; --force also removes its other package files', async () => {
    const target = out('replace');
    expect((await runCli(args(target))).code).toBe(0);
    await writeFile(join(target, 'model_config.json'), '{"model_architecture": "yolo26"}');
    await writeFile(join(target, 'class_names.txt'), 'background\nold\n');
    const refused = await runCli(args(target));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `edgeseg: ${target} already holds weights.onnx, class_names.txt, inference_config.json, model_config.json: give --force to replace the package there, or another --out\nRun "edgeseg --help" for usage.\n`,
    );
    expect(await readFile(join(target, 'class_names.txt'), 'utf8')).toBe('background\nold\n');
    const forced = await runCli(args(target, '--force'));
    expect(forced.code).toBe(0);
    expect((await readdir(target)).sort()).toEqual(['class_names.txt', 'inference_config.json', 'weights.onnx']);
    expect(await readFile(join(target, 'class_names.txt'), 'utf8')).toBe('background\nshape\n');
  });

  test('never through a symbolic link: not --out itself, not a file in it, even with --force', async () => {
    const real = out('real');
    await mkdir(real);
    const link = out('link');
    await symlink(real, link);
    const r = await runCli(args(link));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--out ${link} is a symbolic link`);
    expect(await readdir(real)).toEqual([]);

    const target = out('linked-file');
    await mkdir(target);
    const victim = out('victim.txt');
    await writeFile(victim, 'untouched');
    await symlink(victim, join(target, 'class_names.txt'));
    const linked = await runCli(args(target, '--force'));
    expect(linked.code).toBe(2);
    expect(linked.stderr).toContain('holds class_names.txt (a symbolic link): edgeseg package never writes through a link');
    expect(await readFile(victim, 'utf8')).toBe('untouched');
    expect((await lstat(join(target, 'class_names.txt'))).isSymbolicLink()).toBe(true);
    expect(await readlink(join(target, 'class_names.txt'))).toBe(victim);
    expect(await readdir(target)).toEqual(['class_names.txt']);
  });
});

describe('bad flags: exit code 2 and what to write, nothing written (every flag: test/unit/cli/package-flags.test.ts)', () => {
  const sigmoid = join(FORM('sigmoid'), 'weights.onnx');
  test.concurrent.each<[string, string[], string]>([
    [
      'no background',
      [sigmoid, '--classes', 'person,car', ...FLAGS],
      '--classes has no background class (person, car): the platform requires one',
    ],
    [
      'no preprocessing flags',
      [sigmoid, '--classes', 'background,shape'],
      'package needs how the model saw images in training, which its graph does not say: --resize stretch|letterbox|center-crop|fit-longer-edge; --color rgb|bgr; --scale 255|none; --imagenet, --mean r,g,b --std r,g,b, or --no-normalization',
    ],
    [
      'a --size against a fixed input',
      [sigmoid, '--classes', 'background,shape', ...FLAGS, '--size', '64x64'],
      `--size 64x64 differs from the model's fixed input "image" float32 [1, 3, 40, 40] (40x40)`,
    ],
    [
      'no --size for a dynamic model',
      ['models/dynamic-sigmoid.onnx', ...DYNAMIC_FLAGS],
      `the model's input "x" float32 [?, 3, ?, ?] fixes no size: give the size it was trained at, --size WxH`,
    ],
  ])('%s', async (name, args, message) => {
    const target = out(`bad-${name.replace(/\W+/g, '-')}`);
    // The model built in beforeAll, by its path under the test's folder.
    const r = await runCli(['package', ...args.map((a) => (a.startsWith('models/') ? out(a) : a)), '--out', target]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toMatch(/^edgeseg: .*\nRun "edgeseg --help" for usage\.\n$/s);
    expect(existsSync(target)).toBe(false);
  });
});

describe('a model given as a file, or under another name: the refusal says to run edgeseg package', () => {
  test('--model x.onnx', async () => {
    const model = join(FORM('sigmoid'), 'weights.onnx');
    const r = await runCli(['segment', fixturePath(manifest.endToEnd[0]!.file), '--model', model]);
    expect(r.code).toBe(4);
    expect(r.stderr).toBe(
      `edgeseg: ${model} is a model file, not a package folder: edgeseg needs to know its classes and how it saw images, which a package folder says (weights.onnx, class_names.txt, inference_config.json); write the package with: npx edgeseg package ${model} --classes background,<class>,… (the flags it asks for say how the model saw images; docs/node.md, "Packaging a model") [MODEL_FILE_MISSING]\n`,
    );
  });

  test('a folder holding model.onnx and no weights.onnx', async () => {
    const folder = out('wild');
    await mkdir(folder);
    await writeFile(join(folder, 'model.onnx'), await readFile(join(FORM('sigmoid'), 'weights.onnx')));
    const r = await runCli(['info', '--model', folder]);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`edgeseg: ${folder} holds model.onnx but no weights.onnx`);
    expect(r.stderr).toContain(`npx edgeseg package ${join(folder, 'model.onnx')} --classes background,<class>,…`);
  });

  test("a refusal of the model reaches the command's stderr as the package reader wrote it", async () => {
    let expected = '';
    try {
      parseModelPackage(await readPackageDir(FORM('clip')));
    } catch (error) {
      expected = `edgeseg: ${(error as Error).message} [${(error as { code: string }).code}]\n`;
    }
    expect(expected).toContain('MODEL_OUTPUT_SHAPE');
    const r = await runCli(['info', '--model', FORM('clip')]);
    expect(r.code).toBe(4);
    expect(r.stderr).toBe(expected);
  });
});

// `edgeseg package <model.onnx> --classes …`: a model package folder for an ONNX model as it was shipped
// (weights.onnx, class_names.txt, and an inference_config.json with every field the platform's schema requires),
// with what the graph says (input size, layout, the output's form) read from it and the rest from flags. The
// package is loaded as `edgeseg info` loads one before anything is written: a model edgeseg refuses leaves nothing.
import { readFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { isEdgesegError, ModelPackageError } from '../errors/index.js';
import {
  IMAGENET,
  parseModelPackage,
  readOnnxModel,
  type DynamicSizeMode,
  type ModelForm,
  type PackageFiles,
  type TensorLayout,
} from '../model/index.js';
import { MAX_INPUT_SIDE } from '../model/json-file.js';
import { describe } from '../model/model-form.js';
import { valueTypeOf } from '../model/onnx-graph.js';
import type { ModelProto } from '../model/onnx-schema.js';
import { createSegmenter } from '../node/segmenter.js';
import { numberOption, parse, type Io } from './args.js';
import { EXIT } from './exit-codes.js';
import { modelInfoJson, modelInfoLines } from './model-info.js';
import { UsageError } from './usage-error.js';
import { writePackageFiles } from './write-package.js';

export const PACKAGE_HELP = `  edgeseg package <model.onnx> --classes background,<class>,… [--out <dir>] [--force]
                  --resize stretch|letterbox|center-crop|fit-longer-edge [--padding 0..255]
                  --color rgb|bgr  --scale 255|none  --imagenet | --mean r,g,b --std r,g,b | --no-normalization
                  [--size WxH] [--divisible N | --any-size] [--architecture deep-lab-v3-plus|yolo26]
                  [--output <name>] [--input-layout nchw|nhwc] [--output-layout nchw|nhwc]
                  [--post-processing sigmoid|softmax [--fused]] [--json]
      Writes a package folder for an ONNX model as shipped: weights.onnx (the model's bytes),
      class_names.txt, and inference_config.json with every field the platform requires. The graph gives
      the input size where it is fixed, the layouts and the output's form (a final Sigmoid or Softmax is
      written as post_processing {type, fused: true}); the flags give what it cannot: how images were
      resized, their channel order, scale and normalisation. A dynamic model needs --size and either
      --divisible N (the sizes it takes are multiples of N) or --any-size. --classes lists the names in
      output-channel order; one must be background. --out: default a folder named after the model, beside
      it; package files there are replaced only with --force. The package is loaded (as edgeseg info
      loads it) before anything is written, then described; a model edgeseg refuses writes nothing (exit 4).`;

const OPTIONS = {
  classes: { type: 'string' },
  out: { type: 'string', short: 'o' },
  force: { type: 'boolean', short: 'f' },
  size: { type: 'string' },
  divisible: { type: 'string' },
  'any-size': { type: 'boolean' },
  resize: { type: 'string' },
  padding: { type: 'string' },
  color: { type: 'string' },
  scale: { type: 'string' },
  mean: { type: 'string' },
  std: { type: 'string' },
  imagenet: { type: 'boolean' },
  'no-normalization': { type: 'boolean' },
  architecture: { type: 'string' },
  output: { type: 'string' },
  'input-layout': { type: 'string' },
  'output-layout': { type: 'string' },
  'post-processing': { type: 'string' },
  fused: { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

const RESIZE_MODES = ['stretch', 'letterbox', 'center-crop', 'fit-longer-edge'] as const;
const ARCHITECTURES = ['deep-lab-v3-plus', 'yolo26'] as const;

/** What the flags say, checked before the model is read. */
interface PackageSettings {
  classes: string[];
  resize: (typeof RESIZE_MODES)[number];
  padding: number | null;
  color: 'rgb' | 'bgr';
  scale: number | null;
  normalization: [number[], number[]] | null;
  size: { width: number; height: number } | null;
  dynamicMode: DynamicSizeMode | null;
  architecture: (typeof ARCHITECTURES)[number] | null;
  outputName: string | null;
  inputLayout: TensorLayout | null;
  outputLayout: TensorLayout | null;
  postProcessing: { type: 'sigmoid' | 'softmax'; fused: boolean } | null;
}

type Values = ReturnType<typeof parse<typeof OPTIONS>>['values'];

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | null {
  if (value === undefined) return null;
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`--${flag} must be ${allowed.join(', ').replace(/, ([^,]*)$/, ' or $1')}, got ${JSON.stringify(value)}`);
  return value as T;
}

function classList(value: string | undefined): string[] {
  if (value === undefined)
    throw new UsageError(
      'package needs --classes: the class names in the order of the output channels, background among them (--classes background,person)',
    );
  const names = value.split(',').map((n) => n.trim());
  if (names.some((n) => n === '')) throw new UsageError(`--classes has an empty name: ${JSON.stringify(value)}`);
  // class_names.txt holds one name a line.
  if (names.some((n) => /[\p{Cc}]/u.test(n))) throw new UsageError('--classes names must not hold control characters (line breaks, tabs)');
  const seen = new Set<string>();
  for (const n of names) {
    if (seen.has(n.toLowerCase())) throw new UsageError(`--classes names ${JSON.stringify(n)} twice`);
    seen.add(n.toLowerCase());
  }
  if (!seen.has('background'))
    throw new UsageError(
      `--classes has no background class (${names.join(', ')}): the platform requires one, and edgeseg gives it to pixels below the confidence threshold; add it where the model's channel for it is, e.g. --classes background,${names[0]} (a model with one output channel: background and its one class)`,
    );
  if (names.length < 2) throw new UsageError('--classes needs background and at least one class (--classes background,person)');
  if (names.length > 256) throw new UsageError(`--classes lists ${names.length} names; an 8-bit mask holds at most 256`);
  return names;
}

function triple(flag: string, value: string): number[] {
  const parts = value.split(',');
  const numbers = parts.map((p) => Number(p));
  if (parts.length !== 3 || parts.some((p) => p.trim() === '') || numbers.some((n) => !Number.isFinite(n)))
    throw new UsageError(
      `--${flag} takes three numbers, one for each channel in the model's colour order (0.485,0.456,0.406), got ${JSON.stringify(value)}`,
    );
  return numbers;
}

function integerOption(flag: string, value: string | undefined, min: number, max: number): number | null {
  const n = numberOption(flag, value);
  if (n === undefined) return null;
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${flag} must be a whole number ${min}–${max}, got ${value}`);
  return n;
}

/** The flags checked and read; a missing or bad one is a UsageError that says what to write. */
function settingsOf(values: Values): PackageSettings {
  const classes = classList(values.classes);
  const resize = oneOf('resize', values.resize, RESIZE_MODES);
  const color = oneOf('color', values.color, ['rgb', 'bgr'] as const);
  let scale: number | null | undefined;
  if (values.scale === 'none') scale = null;
  else if (values.scale !== undefined) {
    scale = numberOption('scale', values.scale);
    if (scale === undefined || scale <= 0)
      throw new UsageError(`--scale must be a number above 0 (255: pixels ÷255) or none, got ${values.scale}`);
  }
  const ways = [values.imagenet, values.mean !== undefined || values.std !== undefined, values['no-normalization']].filter(Boolean).length;
  if (ways > 1) throw new UsageError('give one of --imagenet, --mean with --std, or --no-normalization');
  let normalization: PackageSettings['normalization'] | undefined;
  if (values.imagenet) normalization = [IMAGENET.mean, IMAGENET.std];
  else if (values['no-normalization']) normalization = null;
  else if (values.mean !== undefined || values.std !== undefined) {
    if (values.mean === undefined || values.std === undefined) throw new UsageError('--mean and --std go together');
    const std = triple('std', values.std);
    if (std.some((s) => s <= 0)) throw new UsageError(`--std must be above 0 in each channel, got ${values.std}`);
    normalization = [triple('mean', values.mean), std];
  }
  const missing = [
    resize === null && '--resize stretch|letterbox|center-crop|fit-longer-edge',
    color === null && '--color rgb|bgr',
    scale === undefined && '--scale 255|none',
    normalization === undefined && '--imagenet, --mean r,g,b --std r,g,b, or --no-normalization',
  ].filter((m): m is string => typeof m === 'string');
  if (missing.length)
    throw new UsageError(
      `package needs how the model saw images in training, which its graph does not say: ${missing.join('; ')}. The model's card or its preprocessing code says them (a PyTorch model trained with torchvision's transforms usually takes --color rgb --scale 255 --imagenet)`,
    );

  const padding = integerOption('padding', values.padding, 0, 255);
  if (padding !== null && resize === 'fit-longer-edge')
    throw new UsageError(
      "--padding does not apply to --resize fit-longer-edge, which the platform runs as a letterbox padded by the architecture's rule (0; 127 for --architecture yolo26): give --resize letterbox --padding N for another value",
    );
  if (padding !== null && resize !== 'letterbox')
    throw new UsageError(`--padding is the colour of a letterbox's edges; --resize ${resize} adds none`);

  let size: PackageSettings['size'] = null;
  if (values.size !== undefined) {
    const m = /^(\d+)[x×X](\d+)$/.exec(values.size.trim());
    const [width, height] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
    if (!m || width < 1 || height < 1 || width > MAX_INPUT_SIDE || height > MAX_INPUT_SIDE)
      throw new UsageError(
        `--size is the model's input width×height, each 1–${MAX_INPUT_SIDE} (--size 320x320), got ${JSON.stringify(values.size)}`,
      );
    size = { width, height };
  }
  if (values.divisible !== undefined && values['any-size']) throw new UsageError('give --divisible N or --any-size, not both');
  const divisor = integerOption('divisible', values.divisible, 1, MAX_INPUT_SIDE);
  const dynamicMode: DynamicSizeMode | null =
    divisor !== null ? { type: 'pad-to-be-divisible', value: divisor } : values['any-size'] ? { type: 'any-size' } : null;

  const postType = oneOf('post-processing', values['post-processing'], ['sigmoid', 'softmax'] as const);
  if (values.fused && postType === null)
    throw new UsageError(
      '--fused says the graph applies the --post-processing activation: give --post-processing sigmoid or softmax with it',
    );
  if (values.output === '') throw new UsageError('--output names one of the model’s outputs');
  return {
    classes,
    resize: resize!,
    padding,
    color: color!,
    scale: scale!,
    normalization: normalization!,
    size,
    dynamicMode,
    architecture: oneOf('architecture', values.architecture, ARCHITECTURES),
    outputName: values.output ?? null,
    inputLayout: oneOf('input-layout', values['input-layout'], ['nchw', 'nhwc'] as const),
    outputLayout: oneOf('output-layout', values['output-layout'], ['nchw', 'nhwc'] as const),
    postProcessing: postType === null ? null : { type: postType, fused: values.fused === true },
  };
}

/** inference_config.json for these settings, in the platform's schema (network_output and the layouts are edgeseg's own). */
function inferenceConfig(
  s: PackageSettings,
  size: { width: number; height: number },
  dynamic: DynamicSizeMode | null,
  postProcessing: PackageSettings['postProcessing'],
  outputName: string | null,
) {
  const networkOutput = {
    ...(outputName === null ? {} : { name: outputName }),
    ...(s.outputLayout === null ? {} : { layout: s.outputLayout }),
  };
  return {
    network_input: {
      training_input_size: { height: size.height, width: size.width },
      dynamic_spatial_size_supported: dynamic !== null,
      ...(dynamic === null ? {} : { dynamic_spatial_size_mode: dynamic }),
      color_mode: s.color,
      resize_mode: s.resize,
      ...(s.resize === 'letterbox' ? { padding_value: s.padding ?? 0 } : {}),
      input_channels: 3,
      scaling_factor: s.scale,
      normalization: s.normalization,
      ...(s.inputLayout === null ? {} : { layout: s.inputLayout }),
    },
    ...(postProcessing === null ? {} : { post_processing: postProcessing }),
    ...(Object.keys(networkOutput).length ? { network_output: networkOutput } : {}),
  };
}

const json = (value: unknown) => new TextEncoder().encode(`${JSON.stringify(value, null, 2)}\n`);

function packageFiles(weights: Uint8Array, s: PackageSettings, config: object): PackageFiles {
  return {
    'weights.onnx': weights,
    'class_names.txt': new TextEncoder().encode(`${s.classes.join('\n')}\n`),
    'inference_config.json': json(config),
    ...(s.architecture === null
      ? {}
      : {
          'model_config.json': json({ model_architecture: s.architecture, task_type: 'semantic-segmentation', backend_type: 'onnx' }),
        }),
  };
}

/** The fields a refusal names that a flag of this command writes. */
const FIELD_FLAGS: [field: string, flag: string][] = [
  ['post_processing', '--post-processing sigmoid|softmax (with --fused where the output already holds probabilities)'],
  ['network_output.name', '--output <name>'],
  ['network_output.layout', '--output-layout nchw|nhwc'],
  ['network_input.layout', '--input-layout nchw|nhwc'],
];

/** A refusal of the model, naming the flags that write the fields it names, and the model's file where it says weights.onnx. */
function refusal(error: unknown, modelPath: string): unknown {
  if (!(error instanceof ModelPackageError)) return error;
  let message = error.message.replace(/^weights\.onnx\b/, modelPath);
  const flags = FIELD_FLAGS.filter(([field]) => message.includes(field)).map(([, flag]) => flag);
  if (flags.length) message += `. edgeseg package writes inference_config.json: give ${flags.join(', ')}`;
  return new ModelPackageError(error.code, message, { cause: error });
}

/** The model's image input as its graph declares it, and its sides [H, W] where fixed (a number > 0). */
function graphInput(proto: ModelProto, name: string, layout: TensorLayout) {
  const info = proto.graph?.input?.find((i) => i.name === name);
  const input = info ? valueTypeOf(info) : { name, elemType: undefined, dims: undefined };
  const dims = input.dims?.length === 4 ? input.dims : [undefined, undefined, undefined, undefined];
  const fixed = (d: number | string | undefined) => (typeof d === 'number' && d > 0 ? d : undefined);
  const sides = layout === 'nchw' ? [dims[2], dims[3]] : [dims[1], dims[2]];
  return { shown: describe(input), height: fixed(sides[0]), width: fixed(sides[1]) };
}

/** The input size and dynamic mode from the graph's input and the flags; a contradiction is a UsageError. */
function inputSize(s: PackageSettings, { shown, height: h, width: w }: ReturnType<typeof graphInput>) {
  if (h !== undefined && w !== undefined) {
    if (s.size && (s.size.width !== w || s.size.height !== h))
      throw new UsageError(
        `--size ${s.size.width}x${s.size.height} differs from the model's fixed input ${shown} (${w}x${h}): leave --size out`,
      );
    if (s.dynamicMode)
      throw new UsageError(
        `the model's input ${shown} is fixed at ${w}x${h}: it runs at no other size, so --divisible and --any-size do not apply`,
      );
    return { size: { width: w, height: h }, dynamic: null };
  }
  if (!s.size)
    throw new UsageError(
      `the model's input ${shown} fixes no size: give the size it was trained at, --size WxH (width×height, e.g. --size 640x640)`,
    );
  if ((h !== undefined && s.size.height !== h) || (w !== undefined && s.size.width !== w))
    throw new UsageError(`--size ${s.size.width}x${s.size.height} differs from the model's input ${shown}`);
  if (h !== undefined || w !== undefined) {
    // One side fixed: the model runs at no other size than this one.
    if (s.dynamicMode) throw new UsageError(`the model's input ${shown} fixes one side, so --divisible and --any-size do not apply`);
    return { size: s.size, dynamic: null };
  }
  if (!s.dynamicMode)
    throw new UsageError(
      `the model's input ${shown} takes any size as far as its graph says, but many models take only multiples of a stride (text detectors: 32): give --divisible N, or --any-size where any size works`,
    );
  const mode = s.dynamicMode;
  if (mode.type === 'pad-to-be-divisible' && (s.size.width % mode.value !== 0 || s.size.height % mode.value !== 0))
    throw new UsageError(`--size ${s.size.width}x${s.size.height} is not a multiple of --divisible ${mode.value}`);
  return { size: s.size, dynamic: mode };
}

/** The folder a package is written to by default: beside the model, named after it. */
function defaultOut(modelPath: string): string {
  const ext = extname(modelPath);
  const name = basename(modelPath, ext);
  return join(dirname(modelPath), ext === '' ? `${name}-package` : name);
}

async function readModelFile(path: string): Promise<Uint8Array> {
  try {
    return new Uint8Array(await readFile(path));
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'EISDIR')
      throw new UsageError(
        `${path} is a folder: edgeseg package takes the model's .onnx file (a folder that is a package already: edgeseg info --model ${path})`,
      );
    throw new ModelPackageError('MODEL_FILE_MISSING', `could not read ${path}: ${(cause as Error).message}`, { cause });
  }
}

/** The command: `args` are what follows `package`. */
export async function packageCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, OPTIONS);
  if (values.help) {
    io.out(`${PACKAGE_HELP}\n`);
    return EXIT.ok;
  }
  if (positionals.length !== 1)
    throw new UsageError('package takes one model file: edgeseg package model.onnx --classes background,… (see edgeseg package --help)');
  const modelPath = positionals[0]!;
  const settings = settingsOf(values);
  const out = values.out ?? defaultOut(modelPath);
  const weights = await readModelFile(modelPath);
  try {
    const { proto } = readOnnxModel(weights);
    // A first reading with the size unknown: the graph's input layout says where its sides are, and the output's form what to write.
    const draft = packageFiles(
      weights,
      settings,
      inferenceConfig(
        settings,
        settings.size ?? { width: 1, height: 1 },
        settings.dynamicMode,
        settings.postProcessing,
        settings.outputName,
      ),
    );
    const { form } = parseModelPackage(draft).spec;
    const { size, dynamic } = inputSize(settings, graphInput(proto, form.input.name, form.input.layout));
    // The graph's final activation, as the platform's schema writes it: fused, the output holds probabilities; a
    // LogSoftmax's log-probabilities are scores whose softmax is the model's, so not fused.
    const postProcessing =
      settings.postProcessing ??
      (form.output.form === 'sigmoid' || form.output.form === 'softmax'
        ? { type: form.output.form, fused: true }
        : form.output.form === 'log-softmax'
          ? { type: 'softmax' as const, fused: false }
          : null);
    // With several outputs, the one read is named, so that the package keeps meaning it.
    const outputName = settings.outputName ?? (form.ignoredOutputs.length ? form.output.name : null);
    const config = inferenceConfig(settings, size, dynamic, postProcessing, outputName);
    const files = packageFiles(weights, settings, config);
    const seg = await createSegmenter({ model: { files }, backends: ['native'], numThreads: 1 });
    try {
      await writePackageFiles(out, files, { force: values.force === true });
      const notes = platformNotes(seg.spec.form, proto.graph?.output?.[0]?.name);
      if (values.json) {
        io.out(
          `${JSON.stringify({ out, files: Object.keys(files), inference_config: config, info: modelInfoJson(seg.spec, seg.warnings), notes }, null, 2)}\n`,
        );
      } else {
        io.out(
          [
            `wrote ${out}: ${Object.keys(files).join(', ')}`,
            ...modelInfoLines(seg.spec, seg.warnings),
            ...notes.map((n) => `note: ${n}`),
            // A word without a slash would name a bundled model.
            `run it: edgeseg segment photo.jpg --model ${/[\\/]/.test(out) ? out : `./${out}`}`,
            '',
          ].join('\n'),
        );
      }
      return EXIT.ok;
    } finally {
      await seg.dispose();
    }
  } catch (error) {
    throw isEdgesegError(error) ? refusal(error, modelPath) : error;
  }
}

/** What the platform's own server would do differently with this package, where it would. */
function platformNotes(form: ModelForm, firstOutput: string | undefined): string[] {
  const notes: string[] = [];
  if (form.output.form === 'argmax')
    notes.push(
      "the model ends in an ArgMax: edgeseg reads the scores before it, but the platform's server reads the first output as scores and cannot run this model",
    );
  if (form.output.name !== firstOutput)
    notes.push(
      `the model has several outputs: edgeseg reads ${JSON.stringify(form.output.name)} (network_output.name, edgeseg's own field); the platform's server reads the first`,
    );
  return notes;
}

// The `edgeseg` command line. Exit codes: 0 ok, 1 runtime failure, 2 usage, 3 bad input, 4 model package.
import { readFile, writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import sharp from 'sharp';
import { isEdgesegError, type EdgesegError } from '../errors/index.js';
import { classColors } from '../model/index.js';
import { encodeMaskPng } from '../payload/index.js';
import { validateConfidence } from '../pipeline/index.js';
import { DEFAULT_BUNDLED_MODEL, packageVersion } from './bundled-model.js';
import { decodeImage } from './decode-image.js';
import { overlayMask } from './overlay.js';
import { createSegmenter, type NodeBackendName } from './segmenter.js';

export const EXIT = { ok: 0, failure: 1, usage: 2, badInput: 3, model: 4 } as const;

const HELP = `edgeseg — semantic segmentation that returns the platform's hosted payload

Usage:
  edgeseg segment <image> [--model <name|dir|url>] [--confidence 50] [--backend native|wasm]
                  [--out mask.png] [--overlay overlay.png] [--threads N] [--max-pixels N] [--timings] [--quiet]
      Prints the payload JSON {segmentation_mask, class_map, image} on stdout.
      --out writes the class-id mask as an 8-bit grayscale PNG; --overlay writes the image with the
      mask in the class colours (PNG, JPEG or WebP by extension). --timings prints per-stage times
      on stderr. --quiet prints no JSON.
  edgeseg info [--model <name|dir|url>] [--json]
      The model's classes, input size and preprocessing.
  edgeseg serve [--port 8787] [--host 127.0.0.1] [--data <dir>] [--api-key <key>]
      The local platform: every route of the platform on loopback.
  edgeseg --help | --version

--model names a bundled model: people (the default: people in photos, 256×256), people-landscape
(144×256, for video calls) or shapes (five synthetic shape classes); or a package folder (write a folder
named like a bundled model as ./people); or a URL, downloaded once and cached ($EDGESEG_CACHE_DIR,
default ~/.cache/edgeseg).

Exit codes: 0 ok · 1 runtime failure · 2 usage error · 3 bad input (image, confidence) · 4 model package problem`;

type Io = { out: (s: string) => void; err: (s: string) => void };
const stdio: Io = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) };

export async function main(argv: string[], io: Io = stdio): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      io.out(`${HELP}\n`);
      return command === undefined ? EXIT.usage : EXIT.ok;
    }
    if (command === '--version' || command === '-v') {
      io.out(`${packageVersion()}\n`);
      return EXIT.ok;
    }
    if (command === 'segment') return await segment(rest, io);
    if (command === 'info') return await info(rest, io);
    if (command === 'serve') return await serve(rest, io);
    io.err(`edgeseg: unknown command "${command}"\n\n${HELP}\n`);
    return EXIT.usage;
  } catch (error) {
    return report(error, io);
  }
}

class UsageError extends Error {}

function parse<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O) {
  const config = { args, options: { ...options, help: { type: 'boolean' as const, short: 'h' } }, allowPositionals: true as const, strict: true as const };
  try {
    return parseArgs(config);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function numberOption(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (typeof value !== 'string' || value.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${name} must be a number, got ${JSON.stringify(value)}`);
  return n;
}

function modelOf(value: unknown): string | { url: string } {
  if (typeof value !== 'string') return DEFAULT_BUNDLED_MODEL;
  return /^https?:\/\//.test(value) ? { url: value } : value;
}

async function segment(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, {
    model: { type: 'string', short: 'm' },
    confidence: { type: 'string', short: 'c' },
    backend: { type: 'string', short: 'b' },
    out: { type: 'string', short: 'o' },
    overlay: { type: 'string' },
    threads: { type: 'string' },
    'max-pixels': { type: 'string' },
    timings: { type: 'boolean' },
    quiet: { type: 'boolean', short: 'q' },
  });
  if (values.help) {
    io.out(`${HELP}\n`);
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw new UsageError('segment takes exactly one image');
  const backend = (values.backend ?? 'native') as NodeBackendName;
  if (backend !== 'native' && backend !== 'wasm') throw new UsageError(`--backend must be native or wasm, got ${JSON.stringify(values.backend)}`);
  // Checked before the model loads, so a bad value is reported as what it is.
  const confidence = validateConfidence(numberOption('confidence', values.confidence) ?? 50);
  const numThreads = numberOption('threads', values.threads);
  const maxPixels = numberOption('max-pixels', values['max-pixels']);
  const seg = await createSegmenter({
    model: modelOf(values.model),
    backend,
    ...(numThreads === undefined ? {} : { numThreads }),
    ...(maxPixels === undefined ? {} : { maxPixels }),
  });
  try {
    for (const w of seg.warnings) io.err(`edgeseg: warning: ${w}\n`);
    const image = positionals[0]!;
    const { payload, raw, timings } = await seg.segmentDetailed(image, { confidence });
    if (values.out) await writeFile(values.out as string, encodeMaskPng(raw.classIds, raw.width, raw.height));
    if (values.overlay) {
      const pixels = await decodeImage(new Uint8Array(await readFile(image)), maxPixels === undefined ? {} : { maxPixels });
      const rgb = overlayMask(pixels, raw.classIds, classColors(seg.spec), seg.spec.backgroundClassId);
      await writeImage(values.overlay as string, rgb, raw.width, raw.height);
    }
    if (values.timings) {
      io.err(`${Object.entries(timings).map(([k, v]) => `${k} ${v.toFixed(1)} ms`).join(' · ')} (${seg.backend})\n`);
    }
    if (!values.quiet) io.out(`${JSON.stringify(payload)}\n`);
    return EXIT.ok;
  } finally {
    await seg.dispose();
  }
}

async function writeImage(path: string, rgb: Uint8Array, width: number, height: number): Promise<void> {
  const img = sharp(rgb, { raw: { width, height, channels: 3 } });
  const ext = extname(path).toLowerCase();
  const encoded = ext === '.jpg' || ext === '.jpeg' ? img.jpeg({ quality: 92 }) : ext === '.webp' ? img.webp({ lossless: true }) : img.png();
  await writeFile(path, await encoded.toBuffer());
}

async function info(args: string[], io: Io): Promise<number> {
  const { values } = parse(args, { model: { type: 'string', short: 'm' }, json: { type: 'boolean' } });
  if (values.help) {
    io.out(`${HELP}\n`);
    return EXIT.ok;
  }
  const seg = await createSegmenter({ model: modelOf(values.model), numThreads: 1 });
  try {
    const { spec } = seg;
    const colors = classColors(spec);
    if (values.json) {
      io.out(`${JSON.stringify({ generation: spec.generation, task: spec.task, modelType: spec.modelType, classes: spec.classNames, colors, backgroundClassId: spec.backgroundClassId, preprocess: spec.preprocess, warnings: seg.warnings }, null, 2)}\n`);
      return EXIT.ok;
    }
    const p = spec.preprocess;
    const lines = [
      `package:       ${spec.generation === 'legacy' ? 'legacy export (environment.json)' : 'current export (inference_config.json)'}`,
      `task:          ${spec.task ?? 'not given (model_type.json)'}`,
      `model type:    ${spec.modelType ?? 'not given (model_type.json)'}`,
      `input:         ${p.resize.width}×${p.resize.height}, ${p.resize.mode}${p.resize.mode === 'letterbox' ? ` (padding ${p.resize.paddingValue})` : ''}, ${p.colorMode.toUpperCase()}`,
      `scale:         ${p.scalingFactor === null ? 'none' : `÷${p.scalingFactor}`}`,
      `normalise:     ${p.normalization === null ? 'none' : `mean ${p.normalization.mean.join(', ')} · std ${p.normalization.std.join(', ')}`}`,
      `static crop:   ${p.staticCrop === null ? 'none' : `x ${p.staticCrop.xMin}–${p.staticCrop.xMax}%, y ${p.staticCrop.yMin}–${p.staticCrop.yMax}%`}`,
      `grayscale:     ${p.grayscale ? 'yes' : 'no'}`,
      `contrast:      ${p.contrast ?? 'none'}`,
      `classes (${spec.classNames.length}):`,
      ...spec.classNames.map((n, i) => `  ${String(i).padStart(3)}  ${colors[i]}  ${n}${i === spec.backgroundClassId ? '  (background)' : ''}`),
      ...seg.warnings.map((w) => `warning: ${w}`),
    ];
    io.out(`${lines.join('\n')}\n`);
    return EXIT.ok;
  } finally {
    await seg.dispose();
  }
}

async function serve(args: string[], io: Io): Promise<number> {
  const { values } = parse(args, { port: { type: 'string', short: 'p' }, host: { type: 'string' }, data: { type: 'string', short: 'd' }, 'api-key': { type: 'string' }, quiet: { type: 'boolean', short: 'q' } });
  if (values.help) {
    io.out(`${HELP}\n`);
    return EXIT.ok;
  }
  const port = numberOption('port', values.port) ?? 8787;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0–65535, got ${values.port}`);
  // Loaded on demand: the platform is a server, the rest of the CLI does not need it.
  const { startPlatformServer } = await import('../../server/start.js');
  const server = await startPlatformServer({
    port,
    host: (values.host as string | undefined) ?? '127.0.0.1',
    ...(values.data ? { dataDir: values.data as string } : {}),
    ...(values['api-key'] ? { apiKey: values['api-key'] as string } : {}),
    ...(values.quiet ? {} : { log: (line: string) => io.err(`${line}\n`) }),
  });
  io.out(
    [
      'edgeseg local platform',
      `  base_url       ${server.baseUrl}`,
      `  inference_url  ${server.inferenceUrl}`,
      `  api key        ${server.apiKey}   (workspace edgeseg-demo, project shapes, versions 1 and 2)`,
      `  data           ${server.dataDir}`,
      'Ctrl-C stops it.',
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
  return EXIT.ok;
}

function report(error: unknown, io: Io): number {
  if (error instanceof UsageError) {
    io.err(`edgeseg: ${error.message}\nRun "edgeseg --help" for usage.\n`);
    return EXIT.usage;
  }
  if (isEdgesegError(error)) {
    const e = error as EdgesegError;
    io.err(`edgeseg: ${e.message} [${e.code}]\n`);
    if (e.name === 'InvalidInputError') return EXIT.badInput;
    if (e.name === 'ModelPackageError') return EXIT.model;
    return EXIT.failure;
  }
  io.err(`edgeseg: ${(error as Error)?.message ?? String(error)}\n`);
  return EXIT.failure;
}

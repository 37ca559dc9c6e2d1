// The `edgeseg` command line. Exit codes: 0 ok, 1 runtime failure, 2 usage, 3 bad input, 4 model package, 130 batch interrupted.
import { stat, writeFile } from 'node:fs/promises';
import { isEdgesegError } from '../errors/index.js';
import { classColors } from '../model/index.js';
import { validateConfidence } from '../pipeline/index.js';
import { numberOption, parse, type Io } from './args.js';
import { formatSummary, prepareBatch, runBatch } from './batch.js';
import { DEFAULT_BUNDLED_MODEL, packageVersion } from '../node/bundled-model.js';
import { cutoutRgba, maskAlpha, type CutoutEdges } from './cutout.js';
import { COPY_RUNTIME_HELP, copyRuntimeCommand } from './copy-runtime.js';
import { EXIT } from './exit-codes.js';
import { modelInfoJson, modelInfoLines } from './model-info.js';
import { overlayMask } from './overlay.js';
import { PACKAGE_HELP, packageCommand } from './package.js';
import { createProgressBar } from './progress-bar.js';
import { createSegmenter, type NodeBackendName, type NodeSegmenterOptions } from '../node/segmenter.js';
import { defaultBatchConcurrency } from '../node/threads.js';
import { UsageError } from './usage-error.js';
import { writeImage } from './write-image.js';
import { printable } from './printable.js';

export { restrictImageLoaders } from '../node/image-loaders.js';

export { EXIT };

const HELP = `edgeseg — semantic segmentation that returns the platform's hosted payload

Usage:
  edgeseg segment <image> [--model <name|dir|url>] [--confidence 50] [--backend native|wasm]
                  [--out mask.png] [--overlay overlay.png] [--cutout cutout.png] [--edges soft|hard]
                  [--feather N] [--threads N] [--max-pixels N] [--timings] [--quiet]
      Prints the payload JSON {segmentation_mask, class_map, image} on stdout.
      --out writes the class-id mask as an 8-bit grayscale PNG; --overlay writes the image with the
      mask in the class colours (PNG, JPEG or WebP by extension); --cutout writes a PNG with alpha that
      keeps every non-background pixel, its edge soft and following the image's edges (--edges hard:
      the class-id mask's edge; --feather N blurs the edge over N pixels; the image's own alpha is
      kept). --timings prints per-stage times on stderr. --quiet prints no JSON.
  edgeseg segment <file|folder|glob>... --out-dir <dir> [--cutout] [--overlay] [--edges soft|hard] [--feather N]
                  [--concurrency N] [--json] [--quiet] [--model …] [--confidence …] [--backend …]
      Many images: folders are walked for image names (.jpg .jpeg .jpe .jfif .png .webp .gif .avif .tif .tiff),
      globs ('photos/**/*.jpg', quoted) are matched. Each image writes <name>.png (the mask), and
      <name>.cutout.png / <name>.overlay.jpg, under <dir> with the folders it was found in. A progress
      bar on a terminal, a summary on stderr at the end (--json: the summary as JSON on stdout). An
      image that fails is listed in the summary and the rest go on; the exit code is then 3.
      --concurrency: images in flight (default ${defaultBatchConcurrency()} here: 2 on 2 cores, up to 4).
  edgeseg info [--model <name|dir|url>] [--json]
      What edgeseg will do with the model: its classes, input size and preprocessing; the graph's input
      (name, layout, type) and the output it reads (its form: logits, sigmoid, softmax, argmax; layout,
      type, channels), the outputs left out, what edgeseg changed in the graph to run it, the
      architecture, the dynamic input size, and the package's warnings.
${PACKAGE_HELP}
  edgeseg serve [--port 8787] [--host 127.0.0.1] [--data <dir>] [--api-key <key>]
                [--allow-origin <origin>]... [--public-url <url>]
      The local platform: every route of the platform on loopback. A new data directory gets a
      random key (printed at start). Pages on loopback origins may call it; --allow-origin grants
      another origin (repeatable). Requests must be addressed to it (127.0.0.1, localhost, its
      --host address, or the host of --public-url).
${COPY_RUNTIME_HELP}
  edgeseg --help | --version

--model names a bundled model: people (the default: people in photos, 256×256), people-landscape
(144×256, for video calls) or shapes (five synthetic shape classes); or a package folder (write a folder
named like a bundled model as ./people); or a URL, downloaded once and cached ($EDGESEG_CACHE_DIR,
default ~/.cache/edgeseg). A model file alone (model.onnx) is not a package: edgeseg package writes one.

Exit codes: 0 ok · 1 runtime failure · 2 usage error (also: --out-dir or package's --out cannot be
written) · 3 bad input (image, confidence; in a batch: any image failed) · 4 model package problem
(package: a model edgeseg refuses) · 130 batch stopped by Ctrl-C`;

const stdio: Io = {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  errIsTTY: process.stderr.isTTY === true,
  errColumns: () => process.stderr.columns,
};

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
    if (command === 'package') return await packageCommand(rest, io);
    if (command === 'serve') return await serve(rest, io);
    if (command === 'copy-runtime') {
      copyRuntimeCommand(rest, io.out);
      return EXIT.ok;
    }
    io.err(`edgeseg: unknown command "${printable(command)}"\n\n${HELP}\n`);
    return EXIT.usage;
  } catch (error) {
    return report(error, io);
  }
}

function modelOf(value: unknown): string | { url: string } {
  if (typeof value !== 'string') return DEFAULT_BUNDLED_MODEL;
  return /^https?:\/\//.test(value) ? { url: value } : value;
}

const SEGMENTER_OPTIONS = {
  model: { type: 'string', short: 'm' },
  confidence: { type: 'string', short: 'c' },
  backend: { type: 'string', short: 'b' },
  threads: { type: 'string' },
  'max-pixels': { type: 'string' },
  feather: { type: 'string' },
  edges: { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
} as const;

/** The segmenter's options, the confidence and the cutout's edge and feather from the flags both forms of `segment` share, checked before anything loads. */
function segmenterSettings(values: {
  model?: string;
  confidence?: string;
  backend?: string;
  threads?: string;
  'max-pixels'?: string;
  feather?: string;
  edges?: string;
}) {
  const backend = (values.backend ?? 'native') as NodeBackendName;
  if (backend !== 'native' && backend !== 'wasm')
    throw new UsageError(`--backend must be native or wasm, got ${JSON.stringify(values.backend)}`);
  // Checked before the model loads, so a bad value is reported as what it is.
  const confidence = validateConfidence(numberOption('confidence', values.confidence) ?? 50);
  const numThreads = numberOption('threads', values.threads);
  const maxPixels = numberOption('max-pixels', values['max-pixels']);
  const feather = numberOption('feather', values.feather) ?? 0;
  if (!Number.isInteger(feather) || feather < 0)
    throw new UsageError(`--feather must be a whole number of pixels ≥ 0, got ${values.feather}`);
  const edges = (values.edges ?? 'soft') as CutoutEdges;
  if (edges !== 'soft' && edges !== 'hard') throw new UsageError(`--edges must be soft or hard, got ${JSON.stringify(values.edges)}`);
  const options: NodeSegmenterOptions = {
    model: modelOf(values.model),
    backends: [backend],
    ...(numThreads === undefined ? {} : { numThreads }),
    ...(maxPixels === undefined ? {} : { maxPixels }),
  };
  return { options, confidence, feather, edges };
}

async function segment(args: string[], io: Io): Promise<number> {
  if (args.some((a) => a === '--out-dir' || a.startsWith('--out-dir='))) return segmentBatch(args, io);
  const { values, positionals } = parse(args, {
    ...SEGMENTER_OPTIONS,
    out: { type: 'string', short: 'o' },
    overlay: { type: 'string' },
    cutout: { type: 'string' },
    timings: { type: 'boolean' },
  });
  if (values.help) {
    io.out(`${HELP}\n`);
    return EXIT.ok;
  }
  if (positionals.length !== 1) throw new UsageError('segment takes exactly one image; for several, a folder or a glob, give --out-dir');
  const source = positionals[0]!;
  if ((await stat(source).catch(() => undefined))?.isDirectory())
    throw new UsageError(`${printable(source)} is a folder; give --out-dir to segment the images in it`);
  const { options, confidence, feather, edges } = segmenterSettings(values);
  if (values.cutout && !/\.(png|webp)$/i.test(values.cutout))
    throw new UsageError(`--cutout needs a format with alpha (.png or .webp), got ${values.cutout}`);
  const seg = await createSegmenter(options);
  try {
    for (const w of seg.warnings) io.err(`edgeseg: warning: ${printable(w)}\n`);
    // The soft alpha is computed only for a soft cutout; the payload is the same either way.
    const alpha = Boolean(values.cutout) && edges === 'soft';
    const { payload, maskPng, raw, timings, image } = await seg.segmentDetailed(source, { confidence, alpha });
    if (values.out) await writeFile(values.out, maskPng);
    if (values.overlay) {
      const rgb = overlayMask(image, raw.classIds, classColors(seg.spec), seg.spec.backgroundClassId);
      await writeImage(values.overlay, rgb, raw.width, raw.height, 3);
    }
    if (values.cutout) {
      const subject = raw.alpha ?? maskAlpha(raw.classIds, seg.spec.backgroundClassId);
      await writeImage(values.cutout, cutoutRgba(image, subject, feather), raw.width, raw.height, 4);
    }
    if (values.timings) {
      // The stages in the pipeline's order, by name (Object.entries would type the numbers any).
      const stages = (['decode', 'preprocess', 'run', 'postprocess', 'encode'] as const).map((k) => `${k} ${timings[k].toFixed(1)} ms`);
      io.err(`${stages.join(' · ')} (${seg.backend})\n`);
    }
    if (!values.quiet) io.out(`${JSON.stringify(payload)}\n`);
    return EXIT.ok;
  } finally {
    await seg.dispose();
  }
}

async function segmentBatch(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, {
    ...SEGMENTER_OPTIONS,
    'out-dir': { type: 'string' },
    overlay: { type: 'boolean' },
    cutout: { type: 'boolean' },
    concurrency: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values.help) {
    io.out(`${HELP}\n`);
    return EXIT.ok;
  }
  if (positionals.length === 0) throw new UsageError('segment --out-dir needs at least one file, folder or glob');
  const outDir = values['out-dir'];
  if (!outDir) throw new UsageError('--out-dir needs a folder');
  const { options, confidence, feather, edges } = segmenterSettings(values);
  const concurrency = numberOption('concurrency', values.concurrency) ?? defaultBatchConcurrency();
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new UsageError(`--concurrency must be a whole number ≥ 1, got ${values.concurrency}`);
  // Everything that can be checked without the model is, so that a bad --out-dir costs no model load.
  const plan = await prepareBatch(positionals, { outDir, cutout: values.cutout === true, overlay: values.overlay === true });
  const seg = await createSegmenter(options);
  const bar = io.errIsTTY && !values.quiet ? createProgressBar(io.err, io.errColumns ?? (() => undefined)) : undefined;
  try {
    for (const w of seg.warnings) io.err(`edgeseg: warning: ${printable(w)}\n`);
    // Ctrl-C stops the batch after the images in hand and still prints the summary; a second one kills.
    const controller = new AbortController();
    const interrupt = () => controller.abort();
    process.once('SIGINT', interrupt);
    const summary = await runBatch(seg, plan, {
      confidence,
      concurrency,
      feather,
      edges,
      signal: controller.signal,
      ...(bar ? { onProgress: bar.update } : {}),
    }).finally(() => process.off('SIGINT', interrupt));
    bar?.clear();
    if (!values.quiet) io.err(formatSummary(summary));
    if (values.json) io.out(`${JSON.stringify(summary, null, 2)}\n`);
    return summary.exitCode;
  } finally {
    bar?.clear();
    await seg.dispose();
  }
}

async function info(args: string[], io: Io): Promise<number> {
  const { values } = parse(args, { model: { type: 'string', short: 'm' }, json: { type: 'boolean' } });
  if (values.help) {
    io.out(`${HELP}\n`);
    return EXIT.ok;
  }
  const seg = await createSegmenter({ model: modelOf(values.model), numThreads: 1 });
  try {
    if (values.json) io.out(`${JSON.stringify(modelInfoJson(seg.spec, seg.warnings), null, 2)}\n`);
    else io.out(`${modelInfoLines(seg.spec, seg.warnings).join('\n')}\n`);
    return EXIT.ok;
  } finally {
    await seg.dispose();
  }
}

async function serve(args: string[], io: Io): Promise<number> {
  const { values } = parse(args, {
    port: { type: 'string', short: 'p' },
    host: { type: 'string' },
    data: { type: 'string', short: 'd' },
    'api-key': { type: 'string' },
    quiet: { type: 'boolean', short: 'q' },
    'allow-origin': { type: 'string', multiple: true },
    'public-url': { type: 'string' },
  });
  if (values.help) {
    io.out(`${HELP}\n`);
    return EXIT.ok;
  }
  const port = numberOption('port', values.port) ?? 8787;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0–65535, got ${values.port}`);
  // Loaded on demand: the platform is a server, the rest of the CLI does not need it.
  const [{ startPlatformServer }, { normalizeOrigin }] = await Promise.all([
    import('../../server/start.js'),
    import('../../server/access.js'),
  ]);
  let allowOrigins: string[];
  try {
    allowOrigins = (values['allow-origin'] ?? []).map(normalizeOrigin);
    if (values['public-url'] !== undefined) normalizeOrigin(values['public-url']);
  } catch (error) {
    throw new UsageError(`--allow-origin and --public-url take http(s) URLs: ${(error as Error).message}`);
  }
  const server = await startPlatformServer({
    port,
    host: values.host ?? '127.0.0.1',
    ...(values.data ? { dataDir: values.data } : {}),
    ...(values['api-key'] ? { apiKey: values['api-key'] } : {}),
    ...(allowOrigins.length ? { allowOrigins } : {}),
    ...(values['public-url'] ? { publicUrl: values['public-url'] } : {}),
    ...(values.quiet ? {} : { log: (line: string) => io.err(`${printable(line)}\n`) }),
  });
  // Listening for the signals before the banner says the server is up: whoever reads the banner may stop
  // it at once, and a signal that came before its handler would kill the process instead of closing it.
  const stopped = new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  io.out(
    [
      'edgeseg local platform',
      `  base_url       ${server.baseUrl}`,
      `  inference_url  ${server.inferenceUrl}`,
      `  api key        ${server.apiKey}   (workspace edgeseg-demo, project shapes, versions 1 and 2)`,
      `  data           ${printable(server.dataDir)}`,
      `  CORS           loopback origins${allowOrigins.length ? `, ${allowOrigins.join(', ')}` : ''}`,
      'Ctrl-C stops it.',
      '',
    ].join('\n'),
  );
  await stopped;
  await server.close();
  return EXIT.ok;
}

/** The error for people, on stderr: its message escaped (it may quote a file name, which may hold terminal escapes). */
function report(error: unknown, io: Io): number {
  if (error instanceof UsageError) {
    // A usage error may run over several lines (the outputs that clash, one a line).
    io.err(`edgeseg: ${printable(error.message, '\n')}\nRun "edgeseg --help" for usage.\n`);
    return EXIT.usage;
  }
  if (isEdgesegError(error)) {
    const e = error;
    io.err(`edgeseg: ${printable(e.message)} [${e.code}]\n`);
    if (e.name === 'InvalidInputError') return EXIT.badInput;
    if (e.name === 'ModelPackageError') return EXIT.model;
    return EXIT.failure;
  }
  io.err(`edgeseg: ${printable((error as Error)?.message ?? String(error))}\n`);
  return EXIT.failure;
}

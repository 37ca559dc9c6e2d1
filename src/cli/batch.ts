// The batch form of `edgeseg segment`: files, folders and globs in; a mask (a cutout, an overlay) for each under --out-dir; a summary out.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isEdgesegError } from '../errors/index.js';
import { classColors } from '../model/index.js';
import { assignOutputs, listBatchInputs, type BatchInput } from './batch-inputs.js';
import { cutoutRgba, maskAlpha, type CutoutEdges } from './cutout.js';
import { EXIT } from './exit-codes.js';
import { overlayMask } from './overlay.js';
import { formatSeconds, type Progress } from './progress-bar.js';
import type { DetailedSegmentation, NodeSegmenter } from '../node/segmenter.js';
import { UsageError } from './usage-error.js';
import { encodeImage } from './write-image.js';
import { writeOutputFile } from './output-file.js';
import { printable } from './printable.js';

/** What each image writes, and the suffix that replaces its extension. */
export const OUTPUT_SUFFIXES = { mask: '.png', cutout: '.cutout.png', overlay: '.overlay.jpg' } as const;
export type OutputKind = keyof typeof OUTPUT_SUFFIXES;

export interface BatchPlan {
  outDir: string;
  kinds: OutputKind[];
  inputs: BatchInput[];
  /** For each input, its files in the order of `kinds`. */
  outputs: string[][];
  skipped: string[];
}

/**
 * Everything a batch can check before the model loads: the output folder is created and written to
 * (a usage error, exit 2, when it cannot be), the inputs are listed and their output names assigned
 * (a usage error when two would write the same file).
 */
export async function prepareBatch(
  args: readonly string[],
  options: { outDir: string; cutout: boolean; overlay: boolean },
): Promise<BatchPlan> {
  const { outDir } = options;
  await checkWritable(outDir);
  const { inputs, skipped } = await listBatchInputs(args, { exclude: outDir });
  const kinds: OutputKind[] = [
    'mask',
    ...(options.cutout ? (['cutout'] as const) : []),
    ...(options.overlay ? (['overlay'] as const) : []),
  ];
  const { outputs, clashes } = assignOutputs(
    inputs,
    outDir,
    kinds.map((k) => OUTPUT_SUFFIXES[k]),
  );
  if (clashes.length > 0) {
    const lines = clashes.slice(0, 5).map((c) => `  ${printable(c.file)} ← ${c.inputs.map((i) => printable(i)).join(', ')}`);
    throw new UsageError(
      `two inputs would write the same output file:\n${lines.join('\n')}${clashes.length > 5 ? `\n  … and ${clashes.length - 5} more` : ''}`,
    );
  }
  return { outDir, kinds, inputs, outputs, skipped };
}

async function checkWritable(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
    const probe = join(dir, `.edgeseg-write-check-${process.pid}`);
    await writeFile(probe, '', { flag: 'wx' });
    await rm(probe);
  } catch (cause) {
    throw new UsageError(`--out-dir ${printable(dir)} cannot be written: ${printable((cause as Error).message)}`);
  }
}

export interface BatchFailure {
  path: string;
  /** The EdgesegError's code, or OUTPUT_WRITE_FAILED when its files could not be written. */
  code: string;
  message: string;
}

export interface BatchSummary {
  outDir: string;
  /** Inputs listed (files named, found in folders, matched by globs), each file once. */
  images: number;
  segmented: number;
  /** In the order of the inputs. */
  failed: BatchFailure[];
  skipped: string[];
  seconds: number;
  /** The files written, for each image segmented. */
  written: { path: string; files: string[] }[];
  /** Whether `signal` stopped the batch (Ctrl-C) before every image was done. */
  interrupted: boolean;
  /** 0, or 3 when every failure is the input's (unreadable, not an image), or 1 when one is not (a backend failed, an output could not be written); 130 when interrupted. */
  exitCode: number;
}

export interface RunBatchOptions {
  confidence: number;
  concurrency: number;
  /** Feather radius of the cutout's edge in pixels (a box blur of the alpha); 0: none. */
  feather: number;
  /** The cutout's edge: `soft` (the model's probability refined against the image, the default) or `hard` (the class-id mask). */
  edges?: CutoutEdges;
  onProgress?: (progress: Progress) => void;
  signal?: AbortSignal;
}

/** Segments the plan's images with `segmentMany`, writes each one's files as its result arrives, and sums up. A failing image is recorded and the batch goes on. */
export async function runBatch(seg: NodeSegmenter, plan: BatchPlan, options: RunBatchOptions): Promise<BatchSummary> {
  const started = performance.now();
  const failures: (BatchFailure & { index: number; ours: boolean })[] = [];
  plan.inputs.forEach((input, index) => {
    if (input.error) failures.push({ index, path: input.path, code: input.error.code, message: input.error.message, ours: false });
  });
  const readable = plan.inputs.flatMap((input, index) => (input.error ? [] : [{ input, index, files: plan.outputs[index]! }]));
  const written: BatchSummary['written'] = [];
  const progress = { done: 0, total: readable.length, failed: 0, elapsedMs: 0 };
  const report = () => options.onProgress?.({ ...progress, elapsedMs: performance.now() - started });
  report();
  const results = seg.segmentMany(
    readable.map((r) => r.input.path),
    {
      concurrency: options.concurrency,
      confidence: options.confidence,
      alpha: plan.kinds.includes('cutout') && options.edges !== 'hard',
      ...(options.signal ? { signal: options.signal } : {}),
    },
  );
  let interrupted = false;
  try {
    for await (const result of results) {
      const { input, index, files } = readable[result.index]!;
      if (!result.ok) {
        failures.push({
          index,
          path: input.path,
          code: result.error.code,
          message: result.error.message,
          ours: result.error.name !== 'InvalidInputError',
        });
      } else {
        try {
          await writeOutputs(seg, result, plan, files, options.feather);
          written.push({ path: input.path, files });
        } catch (cause) {
          failures.push({ index, path: input.path, code: 'OUTPUT_WRITE_FAILED', message: (cause as Error).message, ours: true });
        }
      }
      progress.done++;
      progress.failed = failures.length;
      report();
    }
  } catch (error) {
    // Stopped on purpose: what was done is summed up like a finished batch.
    if (!(options.signal?.aborted && isEdgesegError(error) && error.code === 'ABORTED')) throw error;
    interrupted = true;
  }
  failures.sort((a, b) => a.index - b.index);
  return {
    outDir: plan.outDir,
    images: plan.inputs.length,
    segmented: written.length,
    failed: failures.map(({ path, code, message }) => ({ path, code, message })),
    skipped: plan.skipped,
    seconds: (performance.now() - started) / 1000,
    written,
    interrupted,
    exitCode: interrupted ? EXIT.interrupted : failures.some((f) => f.ours) ? EXIT.failure : failures.length > 0 ? EXIT.badInput : EXIT.ok,
  };
}

async function writeOutputs(
  seg: NodeSegmenter,
  result: DetailedSegmentation,
  plan: BatchPlan,
  files: readonly string[],
  feather: number,
): Promise<void> {
  const { width, height } = result.raw;
  const background = seg.spec.backgroundClassId;
  for (const [i, kind] of plan.kinds.entries()) {
    const file = files[i]!;
    // The payload's own PNG, so that the file is the single-image path's answer byte for byte.
    const bytes =
      kind === 'mask'
        ? result.maskPng
        : kind === 'cutout'
          ? await encodeImage(
              file,
              cutoutRgba(result.image, result.raw.alpha ?? maskAlpha(result.raw.classIds, background), feather),
              width,
              height,
              4,
            )
          : await encodeImage(file, overlayMask(result.image, result.raw.classIds, classColors(seg.spec), background), width, height, 3);
    await writeOutputFile(plan.outDir, file, bytes);
  }
}

/**
 * The summary for people: counts, time and rate, then each failure with its code, then what was skipped.
 * Names and messages come from the file system: a name may hold terminal escapes, printed escaped.
 */
export function formatSummary(summary: BatchSummary): string {
  const { images, segmented, failed, skipped, seconds } = summary;
  const rate = seconds > 0 ? ` (${(segmented / seconds).toFixed(1)} images/s)` : '';
  const lines = [
    `edgeseg: ${summary.interrupted ? 'interrupted: ' : ''}${segmented} of ${images} image${images === 1 ? '' : 's'} segmented in ${formatSeconds(seconds)}${rate}` +
      `${failed.length > 0 ? `, ${failed.length} failed` : ''}; outputs in ${printable(summary.outDir)}`,
  ];
  if (failed.length > 0) {
    lines.push('failed:');
    for (const f of failed) lines.push(`  ${printable(f.path)}: ${printable(f.message)} [${f.code}]`);
  }
  if (skipped.length > 0) {
    const shown = skipped
      .slice(0, 5)
      .map((name) => printable(name))
      .join(', ');
    lines.push(
      `skipped ${skipped.length} file${skipped.length === 1 ? '' : 's'} not named as images: ${shown}${skipped.length > 5 ? `, … (${skipped.length - 5} more)` : ''}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

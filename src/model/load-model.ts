// Model loading, written once (the browser worker, the Node segmenter and the bench use it): a package's
// files parsed, a session runner started on its weights, the runner's shapes checked against the package,
// and what the pipeline and the payload need.
import { classMapOf } from '../payload/payload.js';
import type { SegmentationModel } from '../pipeline/segment-pixels.js';
import type { ModelIo } from './model-shapes.js';
import type { InputSize } from './input-size.js';
import type { OnnxModel } from './onnx-model.js';
import { checkModelShapes } from './model-shapes.js';
import { parseModelPackage, type ParsedPackage } from './model-package.js';
import type { ModelSpec, PackageFiles } from './types.js';

/** What a session runner must offer for loading: its shapes, and a way to free it. */
export interface LoadableRunner {
  readonly io: ModelIo;
  dispose(): Promise<void>;
}

export interface LoadedModel<R extends LoadableRunner> {
  /** The package's spec, checked against the runner's shapes. */
  spec: ModelSpec;
  /** What the package asked for that edgeseg runs differently (as the platform's server does). */
  warnings: string[];
  runner: R;
  /** The payload's `class_map`. */
  classMap: Record<string, string>;
  /** What the pipeline needs of the model. */
  model: SegmentationModel;
}

/**
 * Parses `files`, starts a runner on the model as read (`startRunner` gets the parsed spec, for choices that
 * depend on preprocessing) and checks its shapes; a package the runner does not fit is refused, and the
 * runner freed, with the check's `ModelPackageError`.
 */
export async function loadModel<R extends LoadableRunner>(
  files: PackageFiles,
  startRunner: (model: OnnxModel, spec: ParsedPackage['spec']) => Promise<R>,
  options: { inputSize?: InputSize } = {},
): Promise<LoadedModel<R>> {
  const parsed = parseModelPackage(files);
  const runner = await startRunner(parsed.model, parsed.spec);
  let checked: ReturnType<typeof checkModelShapes>;
  try {
    checked = checkModelShapes(parsed.spec, runner.io, options.inputSize);
  } catch (error) {
    await runner.dispose();
    throw error;
  }
  const { spec } = checked;
  return {
    spec,
    warnings: [...parsed.warnings, ...checked.warnings],
    runner,
    classMap: classMapOf(spec.classNames),
    model: { preprocess: spec.preprocess, classCount: spec.classNames.length, backgroundClassId: spec.backgroundClassId },
  };
}

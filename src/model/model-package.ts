// A model package's files → the ModelSpec every backend runs, whichever export generation it is.
import { ModelPackageError } from '../errors/index.js';
import { backgroundClassId, checkClassNames, parseClassNames } from './class-names.js';
import { parseInferenceConfig, parseModelReadingConfig } from './inference-config.js';
import { parseJsonFile } from './json-file.js';
import { parseLegacyEnvironment } from './legacy-environment.js';
import { adaptModel } from './model-form.js';
import { onnxModel, readOnnxModel, type OnnxModel } from './onnx-model.js';
import type { ModelSpec, PackageFiles } from './types.js';

/** The files a package may have; the first three are needed (one of the two configs). */
export const PACKAGE_FILES = [
  'weights.onnx',
  'class_names.txt',
  'inference_config.json',
  'environment.json',
  'model_type.json',
  'model_config.json',
] as const;

/** A package parsed but not yet checked against its ONNX model: the input size may still be unknown. */
export interface ParsedPackage {
  spec: Omit<ModelSpec, 'preprocess'> & {
    preprocess: Omit<ModelSpec['preprocess'], 'resize'> & {
      resize: Omit<ModelSpec['preprocess']['resize'], 'width' | 'height'> & { width: number | null; height: number | null };
    };
  };
  /**
   * weights.onnx as read, checked and changed to the pipeline's form (model-form.ts): a runtime gets only the
   * bytes written from it (`model.bytes()`).
   */
  model: OnnxModel;
  warnings: string[];
}

export function parseModelPackage(files: PackageFiles): ParsedPackage {
  const weights = files['weights.onnx'];
  if (!weights || weights.length === 0) {
    const other = Object.keys(files).find((name) => /\.(onnx|tflite|ort|pt|pth)$/i.test(name) && name !== 'weights.onnx');
    throw new ModelPackageError(
      'MODEL_FILE_MISSING',
      other
        ? `the package has no weights.onnx but a ${JSON.stringify(other)}: a package's model is named weights.onnx, beside its inference_config.json and class_names.txt (\`npx edgeseg package ${other} --classes background,…\` writes them)`
        : 'the package has no weights.onnx',
    );
  }
  const read = readOnnxModel(weights);
  const text = (name: string) => new TextDecoder().decode(files[name]);
  const { task, modelType } = parseModelType(files['model_type.json']);
  const architecture = parseModelConfig(files['model_config.json']);
  let parsed: Omit<ParsedPackage, 'model' | 'spec'> & { spec: Omit<ParsedPackage['spec'], 'form' | 'dynamicInput'> };
  const reading = parseModelReadingConfig(files['inference_config.json']);
  if (files['inference_config.json']) {
    if (!files['class_names.txt']) throw missing('class_names.txt');
    const classNames = parseClassNames(text('class_names.txt'));
    parsed = {
      spec: {
        generation: 'current',
        classNames,
        backgroundClassId: backgroundClassId(classNames),
        preprocess: parseInferenceConfig(files['inference_config.json'], architecture),
        colors: {},
        task,
        modelType,
        architecture,
      },
      warnings: reading.warnings,
    };
  } else if (files['environment.json']) {
    const env = parseLegacyEnvironment(files['environment.json']);
    let classNames: string[];
    if (files['class_names.txt']) classNames = parseClassNames(text('class_names.txt'));
    else if (env.classMap) {
      // The reference reads CLASS_MAP when class_names.txt is absent.
      classNames = checkClassNames(
        Object.keys(env.classMap)
          .sort((a, b) => Number(a) - Number(b))
          .map((k) => env.classMap![k]!),
      );
    } else throw missing('class_names.txt');
    parsed = {
      spec: {
        generation: 'legacy',
        classNames,
        backgroundClassId: backgroundClassId(classNames),
        preprocess: env.preprocess,
        colors: env.colors,
        task,
        modelType,
        architecture,
      },
      warnings: env.warnings,
    };
  } else {
    throw new ModelPackageError(
      'MODEL_FILE_MISSING',
      'the package has weights.onnx but neither inference_config.json (current export) nor environment.json (legacy export), which say how to preprocess images for the model: write one (docs/node.md lists its fields), or let `npx edgeseg package weights.onnx --classes background,…` write the package',
    );
  }
  let adapted: ReturnType<typeof adaptModel>;
  try {
    adapted = adaptModel(read.proto, parsed.spec.classNames.length, reading);
  } catch (error) {
    // A legacy package's environment.json has none of the fields a refusal names: its package is written anew.
    if (parsed.spec.generation === 'legacy' && error instanceof ModelPackageError && error.message.includes('inference_config.json')) {
      throw new ModelPackageError(
        error.code,
        `${error.message} (this package is in the legacy layout, whose environment.json has no such field: write an inference_config.json in its place, as \`npx edgeseg package weights.onnx --classes …\` does)`,
        { cause: error },
      );
    }
    throw error;
  }
  const { proto, form } = adapted;
  return {
    ...parsed,
    spec: { ...parsed.spec, form, dynamicInput: reading.dynamicInput },
    model: onnxModel(proto),
  };
}

/** model_config.json's `model_architecture` (the platform's own file, read where a package carries it). */
function parseModelConfig(bytes: Uint8Array | undefined): string | null {
  if (!bytes) return null;
  const config = parseJsonFile('model_config.json', bytes);
  const architecture = config.model_architecture;
  return typeof architecture === 'string' && architecture !== '' ? architecture : null;
}

/**
 * model_type.json holds two different things: the project's task and the model's architecture. The
 * platform's inference server writes and reads `project_task_type` and `model_type`; some exports (the
 * bundled model's among them) write the task as `type`. Each is kept in its own field so that neither
 * is mistaken for the other.
 */
function parseModelType(bytes: Uint8Array | undefined): Pick<ModelSpec, 'task' | 'modelType'> {
  if (!bytes) return { task: null, modelType: null };
  const t = parseJsonFile('model_type.json', bytes);
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
  return { task: text(t.project_task_type) ?? text(t.type), modelType: text(t.model_type) };
}

function missing(name: string): ModelPackageError {
  return new ModelPackageError('MODEL_FILE_MISSING', `the package has no ${name}`);
}

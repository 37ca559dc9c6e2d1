// A model package as edgeseg uses it, whichever generation of the platform's export layout it came from.
import type { PreprocessSpec } from '../pipeline/types.js';

/**
 * Which of the platform's export layouts a package is in: `legacy` (`environment.json`) or `current`
 * (`inference_config.json`).
 */
export type PackageGeneration = 'legacy' | 'current';

/** The files of a model package, by name (weights.onnx, environment.json or inference_config.json, …). */
export type PackageFiles = Record<string, Uint8Array>;

/** What a model package says about its model, read from either generation: classes, colours, preprocessing. */
export interface ModelSpec {
  /** The export layout it was read from. */
  generation: PackageGeneration;
  /** class_names.txt, in order; index = class id. */
  classNames: string[];
  /** Index of the `background` class (case-insensitive) in classNames. */
  backgroundClassId: number;
  /** How an image is brought to the network's input. */
  preprocess: PreprocessSpec;
  /** Class name → colour (`#rrggbb`) where the package gives colours. */
  colors: Record<string, string>;
  /** The project's task from model_type.json (`project_task_type`, or `type`), e.g. `semantic-segmentation`. */
  task: string | null;
  /** The architecture from model_type.json's `model_type`, e.g. `edgeseg-shapes`. */
  modelType: string | null;
}

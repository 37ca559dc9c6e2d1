// A model package as edgeseg uses it, whichever generation of the platform's export layout it came from.
import type { PreprocessSpec } from '../pipeline/types.js';

export type PackageGeneration = 'legacy' | 'current';

/** The files of a model package, by name (weights.onnx, environment.json or inference_config.json, …). */
export type PackageFiles = Record<string, Uint8Array>;

export interface ModelSpec {
  generation: PackageGeneration;
  /** class_names.txt, in order; index = class id. */
  classNames: string[];
  /** Index of the `background` class (case-insensitive) in classNames. */
  backgroundClassId: number;
  preprocess: PreprocessSpec;
  /** Class name → colour (`#rrggbb`) where the package gives colours. */
  colors: Record<string, string>;
  /** model_type.json's `type` (or the environment's), when present. */
  modelType: string | null;
}

// A model package as edgeseg uses it, whichever generation of the platform's export layout it came from.
import type { PreprocessSpec } from '../pipeline/types.js';
import type { ModelForm } from './model-form.js';

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
  /** The project's task from model_type.json (`project_task_type`, or `type`), e.g. `semantic-segmentation`. */
  task: string | null;
  /** The architecture from model_type.json's `model_type`, e.g. `edgeseg-shapes`. */
  modelType: string | null;
  /**
   * The platform's architecture from model_config.json's `model_architecture` (`deep-lab-v3-plus`, `yolo26`),
   * where the package has one: it decides how `fit-longer-edge` pads.
   */
  architecture: string | null;
  /** What the model's graph takes and gives, and what edgeseg changed to run it. */
  form: ModelForm;
  /** Whether the model runs at other input sizes than the package's, and how sizes are rounded. */
  dynamicInput: DynamicInput;
}

/** inference_config.json's `dynamic_spatial_size_supported` and `dynamic_spatial_size_mode`. */
export interface DynamicInput {
  supported: boolean;
  /** `pad-to-be-divisible`: an asked-for size is rounded up to a multiple of `value`; `any-size`: taken as it is. */
  mode: { type: 'pad-to-be-divisible'; value: number } | { type: 'any-size' } | null;
}

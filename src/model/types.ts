// A model package as edgeseg uses it, whichever generation of the platform's export layout it came from.
import type { PreprocessSpec } from '../pipeline/types.js';
import type { ModelForm } from './model-form.js';

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
  /** `dynamic_spatial_size_supported`: whether the model runs at other input sizes than `training_input_size`. */
  supported: boolean;
  /** `dynamic_spatial_size_mode`: how an asked-for input size is taken; null where the package gives none. */
  mode: DynamicSizeMode | null;
}

/** How an asked-for input size is taken: rounded up to a multiple of `value`, or as it is. */
export type DynamicSizeMode =
  | {
      /** The size is rounded up to a multiple of `value`. */
      type: 'pad-to-be-divisible';
      /** The multiple. */
      value: number;
    }
  | {
      /** The size is taken as it is. */
      type: 'any-size';
    };

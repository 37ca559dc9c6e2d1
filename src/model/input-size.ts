// The network input size a segmenter runs a package at: the package's own, or the size the caller asks for where
// the package says its model takes others (dynamic_spatial_size_*), by the platform's rule.
import { InvalidInputError, ModelPackageError } from '../errors/index.js';
import { MAX_INPUT_SIDE } from './json-file.js';
import type { DynamicInput } from './types.js';

/** A network input size in pixels. */
export interface InputSize {
  /** Width in pixels. */
  width: number;
  /** Height in pixels. */
  height: number;
}

/** Throws OPTION_INVALID unless `size` is `{ width, height }` of whole pixels, 1 to MAX_INPUT_SIDE. */
export function checkInputSizeOption(size: unknown): asserts size is InputSize | undefined {
  if (size === undefined) return;
  const side = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= MAX_INPUT_SIDE;
  if (typeof size !== 'object' || size === null || !side((size as InputSize).width) || !side((size as InputSize).height)) {
    throw new InvalidInputError(
      'OPTION_INVALID',
      `inputSize must be { width, height } in whole pixels, 1–${MAX_INPUT_SIDE}; got ${JSON.stringify(size)}`,
    );
  }
}

/**
 * The input size to run at, as the platform's inference server sizes a model for an asked-for `image_size`:
 * only where the package says `dynamic_spatial_size_supported`, rounded up to a multiple of the mode's `value`
 * (`pad-to-be-divisible`) or as asked (`any-size`); where the package does not support it, the package's size
 * and a warning; supported with no mode, an error. The platform's DeepLabV3+ takes no size at all (a warning).
 */
export function resolveInputSize(
  packageSize: InputSize,
  dynamic: DynamicInput,
  architecture: string | null,
  asked: InputSize | undefined,
): { size: InputSize; warning?: string } {
  if (!asked || (asked.width === packageSize.width && asked.height === packageSize.height)) {
    // The package's own size is run as it is (as the platform runs it); one its own mode would round is worth a word.
    const step = dynamic.supported && dynamic.mode?.type === 'pad-to-be-divisible' ? dynamic.mode.value : 1;
    if (packageSize.width % step === 0 && packageSize.height % step === 0) return { size: packageSize };
    return {
      size: packageSize,
      warning: `training_input_size ${packageSize.width}×${packageSize.height} is not a multiple of ${step}, which dynamic_spatial_size_mode says the model's sizes are: the model may refuse it at the first call`,
    };
  }
  const ignored = (why: string) => ({
    size: packageSize,
    warning: `inputSize ${asked.width}×${asked.height} is ignored: ${why}; the model runs at ${packageSize.width}×${packageSize.height}`,
  });
  if (architecture === 'deep-lab-v3-plus') return ignored("the platform's DeepLabV3+ runs at its training size");
  if (!dynamic.supported) return ignored('the package says dynamic_spatial_size_supported: false (or does not say)');
  if (!dynamic.mode) {
    throw new ModelPackageError(
      'MODEL_CONFIG_INVALID',
      'inference_config.json: dynamic_spatial_size_supported is true but dynamic_spatial_size_mode is missing: add {"type": "pad-to-be-divisible", "value": 32} or {"type": "any-size"}',
    );
  }
  if (dynamic.mode.type === 'any-size') return { size: asked };
  const step = dynamic.mode.value;
  const round = (n: number) => Math.min(Math.ceil(n / step) * step, Math.floor(MAX_INPUT_SIDE / step) * step);
  return { size: { width: round(asked.width), height: round(asked.height) } };
}

// Checks a parsed package against its ONNX model's input and output, and settles the input size.
import { ModelPackageError } from '../errors/index.js';
import type { ParsedPackage } from './model-package.js';
import { resolveInputSize, type InputSize } from './input-size.js';
import type { ModelSpec } from './types.js';

/** One ONNX dimension: a number, or a symbolic name / unknown. */
export type Dim = number | string | null | undefined;

export interface ModelIo {
  input: readonly Dim[];
  output: readonly Dim[];
}

const isFixed = (d: Dim): d is number => typeof d === 'number' && d > 0;

/**
 * The ModelSpec for this package and model: input `[1, 3, H, W]` (H, W from the package, or from the
 * model where the package does not say), output `[1, C, h, w]` with C the classes, the classes − 1, or 1.
 */
export function checkModelShapes(
  parsed: ParsedPackage['spec'],
  io: ModelIo,
  inputSize?: InputSize,
): { spec: ModelSpec; warnings: string[] } {
  const { input, output } = io;
  const shape = (dims: readonly Dim[]) => `[${dims.map((d) => (isFixed(d) ? d : (d ?? '?'))).join(', ')}]`;
  if (input.length !== 4 || (isFixed(input[0]) && input[0] !== 1) || input[1] !== 3) {
    throw new ModelPackageError('MODEL_INPUT_SHAPE', `the model's input is ${shape(input)}; edgeseg runs [1, 3, H, W] models`);
  }
  const resize = parsed.preprocess.resize;
  const warnings: string[] = [];
  let height = resize.height ?? (isFixed(input[2]) ? input[2] : null);
  let width = resize.width ?? (isFixed(input[3]) ? input[3] : null);
  if (height !== null && width !== null) {
    const resolved = resolveInputSize({ width, height }, parsed.dynamicInput, parsed.architecture, inputSize);
    ({ width, height } = resolved.size);
    if (resolved.warning) warnings.push(resolved.warning);
  }
  if (height === null || width === null) {
    throw new ModelPackageError(
      'MODEL_INPUT_SHAPE',
      `the package gives no input size and the model's input ${shape(input)} has none either`,
    );
  }
  if ((isFixed(input[2]) && input[2] !== height) || (isFixed(input[3]) && input[3] !== width)) {
    throw new ModelPackageError('MODEL_INPUT_SHAPE', `the package resizes to ${width}×${height} but the model's input is ${shape(input)}`);
  }
  const classes = parsed.classNames.length;
  if (output.length !== 4 || (isFixed(output[0]) && output[0] !== 1)) {
    throw new ModelPackageError('MODEL_OUTPUT_SHAPE', `the model's output is ${shape(output)}; edgeseg expects logits [1, C, h, w]`);
  }
  const c = output[1];
  if (isFixed(c) && c !== classes && c !== classes - 1 && c !== 1) {
    throw new ModelPackageError(
      'MODEL_OUTPUT_SHAPE',
      `the model outputs ${c} channels for ${classes} classes; expected ${classes}, ${classes - 1} (no background channel) or 1 (sigmoid)`,
    );
  }
  return { spec: { ...parsed, preprocess: { ...parsed.preprocess, resize: { ...resize, width, height } } }, warnings };
}

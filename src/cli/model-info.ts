// What `edgeseg info` and `edgeseg package` print of a loaded model: the package's preprocessing and classes,
// what the model's graph takes and gives, and what edgeseg changed in it to run it.
import { classColors, type ModelSpec, type OutputForm } from '../model/index.js';
import { printable } from './printable.js';

/** `edgeseg info --json`: the spec's parts a user reads, and the package's warnings. */
export function modelInfoJson(spec: ModelSpec, warnings: readonly string[]) {
  return {
    generation: spec.generation,
    task: spec.task,
    modelType: spec.modelType,
    architecture: spec.architecture,
    classes: spec.classNames,
    colors: classColors(spec),
    backgroundClassId: spec.backgroundClassId,
    preprocess: spec.preprocess,
    form: spec.form,
    dynamicInput: spec.dynamicInput,
    warnings,
  };
}

const FORMS: Record<OutputForm, string> = {
  logits: 'logits (scores before any activation, the platform’s form)',
  sigmoid: 'sigmoid probabilities',
  softmax: 'softmax probabilities',
  'log-softmax': 'log-softmax log-probabilities',
  argmax: 'class ids (an ArgMax)',
};

/** `edgeseg info`'s text, one line each (the changes and the classes a line each, indented). */
export function modelInfoLines(spec: ModelSpec, warnings: readonly string[]): string[] {
  const p = spec.preprocess;
  const { input, output, ignoredOutputs, changes } = spec.form;
  const colors = classColors(spec);
  const channels =
    output.channels === null ? 'channels known at run time' : `${output.channels} channel${output.channels === 1 ? '' : 's'}`;
  const dynamic = spec.dynamicInput;
  const size = `${p.resize.width}×${p.resize.height}`;
  let dynamicLine = `no (runs at ${size})`;
  if (dynamic.supported) {
    if (dynamic.mode === null) dynamicLine = `yes, no dynamic_spatial_size_mode (runs at ${size})`;
    else if (dynamic.mode.type === 'any-size') dynamicLine = `yes, any size (dynamic_spatial_size_mode any-size; ${size} declared)`;
    else dynamicLine = `yes, sizes rounded up to a multiple of ${dynamic.mode.value} (${size} declared)`;
  }
  return [
    `package:       ${spec.generation === 'legacy' ? 'legacy export (environment.json)' : 'current export (inference_config.json)'}`,
    `task:          ${spec.task ?? 'not given (model_type.json)'}`,
    `model type:    ${spec.modelType ?? 'not given (model_type.json)'}`,
    `architecture:  ${spec.architecture ?? 'not given (model_config.json): run as the platform runs DeepLabV3+'}`,
    `input:         ${size}, ${p.resize.mode}${p.resize.mode === 'letterbox' ? ` (padding ${p.resize.paddingValue})` : ''}, ${p.colorMode.toUpperCase()}`,
    `scale:         ${p.scalingFactor === null ? 'none' : `÷${p.scalingFactor}`}`,
    `normalise:     ${p.normalization === null ? 'none' : `mean ${p.normalization.mean.join(', ')} · std ${p.normalization.std.join(', ')}`}`,
    `static crop:   ${p.staticCrop === null ? 'none' : `x ${p.staticCrop.xMin}–${p.staticCrop.xMax}%, y ${p.staticCrop.yMin}–${p.staticCrop.yMax}%`}`,
    `grayscale:     ${p.grayscale ? 'yes' : 'no'}`,
    `contrast:      ${p.contrast ?? 'none'}`,
    `dynamic input: ${dynamicLine}`,
    `model input:   ${JSON.stringify(input.name)} ${input.type} ${input.layout.toUpperCase()}`,
    `model output:  ${JSON.stringify(output.name)} ${output.type} ${output.layout.toUpperCase()}, ${channels}: ${FORMS[output.form]}`,
    `other outputs: ${ignoredOutputs.length ? `${ignoredOutputs.map((o) => JSON.stringify(o)).join(', ')} (left out)` : 'none'}`,
    `changes:       ${changes.length ? '' : 'none (the model runs as it is)'}`.trimEnd(),
    ...changes.map((c) => `  - ${printable(c)}`),
    `classes (${spec.classNames.length}):`,
    ...spec.classNames.map(
      (n, i) => `  ${String(i).padStart(3)}  ${colors[i]}  ${printable(n)}${i === spec.backgroundClassId ? '  (background)' : ''}`,
    ),
    ...warnings.map((w) => `warning: ${printable(w)}`),
  ];
}

// The current export's inference_config.json, mapped onto the pipeline's PreprocessSpec.
// Field names and meanings follow the platform's InferenceConfig (network_input, image_pre_processing).
import type { PreprocessSpec, ResizeMode } from '../pipeline/types.js';
import { invalid, numberField, objectField, parseJsonFile, inputSideField, positiveIntegerField } from './json-file.js';
import { NO_FORM_CONFIG, type ModelFormConfig, type TensorLayout } from './model-form.js';
import type { DynamicInput } from './types.js';
import { parseImageSteps } from './preprocessing-steps.js';

// `fit-longer-edge` cannot be honoured by a model with a fixed input size: the reference runs it as a
// letterbox, with black edges for DeepLabV3+ and grey (127) for YOLO26, and so do we. `letterbox-reflect-edges`
// is a plain letterbox there too.
const RESIZE_MODES: Record<string, ResizeMode> = {
  stretch: 'stretch',
  letterbox: 'letterbox',
  'letterbox-reflect-edges': 'letterbox',
  'fit-longer-edge': 'letterbox',
  'center-crop': 'center-crop',
};

/** The padding of `fit-longer-edge`'s letterbox for each architecture the platform serves (DeepLabV3+'s by default). */
const FIT_LONGER_EDGE_PADDING: Record<string, number> = { 'deep-lab-v3-plus': 0, yolo26: 127 };

/**
 * inference_config.json's preprocessing. `architecture` is the package's `model_architecture` (model_config.json),
 * which decides the padding of `fit-longer-edge`.
 */
export function parseInferenceConfig(bytes: Uint8Array | string, architecture: string | null = null): PreprocessSpec {
  const file = 'inference_config.json';
  const config = parseJsonFile(file, bytes);
  const input = objectField(file, 'network_input', config.network_input);
  const size = objectField(file, 'network_input.training_input_size', input.training_input_size);
  const width = inputSideField(file, 'training_input_size.width', size.width);
  const height = inputSideField(file, 'training_input_size.height', size.height);
  const channels = input.input_channels ?? 3;
  if (channels !== 3) throw invalid(file, `input_channels must be 3, got ${JSON.stringify(channels)}`);
  const resizeMode = input.resize_mode;
  const mode = typeof resizeMode === 'string' ? RESIZE_MODES[resizeMode] : undefined;
  if (mode === undefined)
    throw invalid(file, `resize_mode ${JSON.stringify(resizeMode)} is not one of ${Object.keys(RESIZE_MODES).join(', ')}`);
  let paddingValue = resizeMode === 'fit-longer-edge' ? (FIT_LONGER_EDGE_PADDING[architecture ?? ''] ?? 0) : 0;
  if (resizeMode !== 'fit-longer-edge' && input.padding_value !== undefined && input.padding_value !== null) {
    paddingValue = numberField(file, 'padding_value', input.padding_value);
    if (!Number.isInteger(paddingValue) || paddingValue < 0 || paddingValue > 255)
      throw invalid(file, `padding_value must be 0–255, got ${paddingValue}`);
  }
  const colorMode = input.color_mode ?? 'rgb';
  if (colorMode !== 'rgb' && colorMode !== 'bgr')
    throw invalid(file, `color_mode must be "rgb" or "bgr", got ${JSON.stringify(colorMode)}`);
  let scalingFactor: number | null = null;
  if (input.scaling_factor !== undefined && input.scaling_factor !== null) {
    scalingFactor = numberField(file, 'scaling_factor', input.scaling_factor);
    if (scalingFactor === 0) throw invalid(file, 'scaling_factor must not be 0');
  }
  let normalization: PreprocessSpec['normalization'] = null;
  if (input.normalization !== undefined && input.normalization !== null) {
    const n = input.normalization;
    const triple = (v: unknown, what: string): [number, number, number] => {
      if (!Array.isArray(v) || v.length !== 3) throw invalid(file, `normalization ${what} must be 3 numbers`);
      return v.map((x, i) => numberField(file, `normalization ${what}[${i}]`, x)) as [number, number, number];
    };
    if (!Array.isArray(n) || n.length !== 2) throw invalid(file, 'normalization must be [mean, std]');
    normalization = { mean: triple(n[0], 'mean'), std: triple(n[1], 'std') };
    if (normalization.std.some((s) => s === 0)) throw invalid(file, 'normalization std must not be 0');
  }
  const steps =
    config.image_pre_processing === undefined || config.image_pre_processing === null
      ? {}
      : objectField(file, 'image_pre_processing', config.image_pre_processing);
  return {
    ...parseImageSteps(file, steps),
    resize: { mode, width, height, paddingValue },
    colorMode,
    scalingFactor,
    normalization,
  };
}

/** What inference_config.json says of how to read the model, beyond preprocessing (see docs/node.md). */
export interface ModelReadingConfig extends ModelFormConfig {
  /** `network_input.dynamic_spatial_size_supported` and `dynamic_spatial_size_mode`. */
  dynamicInput: DynamicInput;
  /** What the package asks for that edgeseg runs as the platform does, for `warnings`. */
  warnings: string[];
}

/**
 * `post_processing` (the platform's: the activation, and whether the graph applies it), `network_output` and
 * `network_input.layout` (edgeseg's own, which the platform ignores), the dynamic input size, and
 * `class_names_operations` (read, and left as the platform's semantic models leave it).
 */
export function parseModelReadingConfig(bytes: Uint8Array | string | undefined): ModelReadingConfig {
  if (bytes === undefined) return { ...NO_FORM_CONFIG, dynamicInput: { supported: false, mode: null }, warnings: [] };
  const file = 'inference_config.json';
  const config = parseJsonFile(file, bytes);
  const input = objectField(file, 'network_input', config.network_input);
  const warnings: string[] = [];
  let postProcessing: ModelFormConfig['postProcessing'] = null;
  if (config.post_processing !== undefined && config.post_processing !== null) {
    const pp = objectField(file, 'post_processing', config.post_processing);
    if (pp.type === 'nms')
      throw invalid(file, 'post_processing is "nms": that is an object detector\'s, and edgeseg runs semantic segmentation models');
    if (pp.type !== 'sigmoid' && pp.type !== 'softmax')
      throw invalid(file, `post_processing.type must be "sigmoid" or "softmax", got ${JSON.stringify(pp.type)}`);
    if (typeof pp.fused !== 'boolean')
      throw invalid(
        file,
        `post_processing.fused must be true (the graph applies the ${pp.type}) or false (it gives scores), got ${JSON.stringify(pp.fused)}`,
      );
    postProcessing = { type: pp.type, fused: pp.fused };
  }
  const layout = (path: string, value: unknown): TensorLayout | null => {
    if (value === undefined || value === null) return null;
    if (value !== 'nchw' && value !== 'nhwc') throw invalid(file, `${path} must be "nchw" or "nhwc", got ${JSON.stringify(value)}`);
    return value;
  };
  let outputName: string | null = null;
  let outputLayout: TensorLayout | null = null;
  if (config.network_output !== undefined && config.network_output !== null) {
    const out = objectField(file, 'network_output', config.network_output);
    if (out.name !== undefined && out.name !== null) {
      if (typeof out.name !== 'string' || out.name === '')
        throw invalid(file, `network_output.name must be an output's name, got ${JSON.stringify(out.name)}`);
      outputName = out.name;
    }
    outputLayout = layout('network_output.layout', out.layout);
  }
  const supported = input.dynamic_spatial_size_supported;
  if (supported !== undefined && supported !== null && typeof supported !== 'boolean')
    throw invalid(file, `dynamic_spatial_size_supported must be true or false, got ${JSON.stringify(supported)}`);
  let mode: DynamicInput['mode'] = null;
  const m = input.dynamic_spatial_size_mode;
  if (m !== undefined && m !== null) {
    const spec = objectField(file, 'dynamic_spatial_size_mode', m);
    if (spec.type === 'pad-to-be-divisible')
      mode = { type: 'pad-to-be-divisible', value: positiveIntegerField(file, 'dynamic_spatial_size_mode.value', spec.value) };
    else if (spec.type === 'any-size') mode = { type: 'any-size' };
    else
      throw invalid(
        file,
        `dynamic_spatial_size_mode must be {"type": "pad-to-be-divisible", "value": N} or {"type": "any-size"}, got ${JSON.stringify(m)}`,
      );
  }
  const operations = config.class_names_operations;
  if (operations !== undefined && operations !== null) {
    if (!Array.isArray(operations)) throw invalid(file, 'class_names_operations must be a list');
    const removed = operations.map((op, i) => {
      const o = objectField(file, `class_names_operations[${i}]`, op);
      if (o.type !== 'class_name_removal' || typeof o.class_name !== 'string')
        throw invalid(file, `class_names_operations[${i}] must be {"type": "class_name_removal", "class_name": "…"}`);
      return o.class_name;
    });
    if (removed.length)
      warnings.push(
        `class_names_operations removes ${removed.map((n) => JSON.stringify(n)).join(', ')}: the platform's semantic segmentation models keep every class, and so does edgeseg`,
      );
  }
  return {
    postProcessing,
    outputName,
    outputLayout,
    inputLayout: layout('network_input.layout', input.layout),
    dynamicInput: { supported: supported === true, mode },
    warnings,
  };
}

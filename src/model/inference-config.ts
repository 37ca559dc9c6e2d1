// The current export's inference_config.json, mapped onto the pipeline's PreprocessSpec.
// Field names and meanings follow the platform's InferenceConfig (network_input, image_pre_processing).
import type { PreprocessSpec, ResizeMode } from '../pipeline/types.js';
import { invalid, numberField, objectField, parseJsonFile, inputSideField } from './json-file.js';
import { parseImageSteps } from './preprocessing-steps.js';

// `fit-longer-edge` cannot be honoured by a model with a fixed input size: the reference's ONNX
// DeepLabV3+ runs it as a black letterbox, and so do we. `letterbox-reflect-edges` is a plain letterbox
// there too.
const RESIZE_MODES: Record<string, ResizeMode> = {
  stretch: 'stretch',
  letterbox: 'letterbox',
  'letterbox-reflect-edges': 'letterbox',
  'fit-longer-edge': 'letterbox',
  'center-crop': 'center-crop',
};

export function parseInferenceConfig(bytes: Uint8Array | string): PreprocessSpec {
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
  let paddingValue = 0;
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

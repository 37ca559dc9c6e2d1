// The legacy export's environment.json, mapped onto the pipeline's PreprocessSpec (see docs/exactness.md).
import type { PreprocessSpec, ResizeMode } from '../pipeline/types.js';
import { invalid, objectField, parseJsonFile, inputSideField } from './json-file.js';
import { parseImageSteps } from './preprocessing-steps.js';

/** ImageNet statistics: the reference's legacy DeepLabV3+ normalises with them. */
export const IMAGENET = { mean: [0.485, 0.456, 0.406] as [number, number, number], std: [0.229, 0.224, 0.225] as [number, number, number] };

// Resize formats → (mode, padding). Formats the reference cannot honour fall back as it does.
const RESIZE_FORMATS: Record<string, [ResizeMode, number]> = {
  'Stretch to': ['stretch', 0],
  'Fit (black edges) in': ['letterbox', 0],
  'Fit (grey edges) in': ['letterbox', 127],
  'Fit (white edges) in': ['letterbox', 255],
  'Fit (reflect edges) in': ['letterbox', 0],
  'Fit within': ['letterbox', 0],
  'Fill (with center crop) in': ['center-crop', 0],
};

export interface LegacyEnvironment {
  /** Input size is null when the package does not say; the ONNX model's input decides. */
  preprocess: Omit<PreprocessSpec, 'resize'> & {
    resize: Omit<PreprocessSpec['resize'], 'width' | 'height'> & { width: number | null; height: number | null };
  };
  classMap: Record<string, string> | null;
  colors: Record<string, string>;
  /** Resize formats this package names that the platform's server does not know (run as "Stretch to"). */
  warnings: string[];
}

export function parseLegacyEnvironment(bytes: Uint8Array | string): LegacyEnvironment {
  const file = 'environment.json';
  const env = parseJsonFile(file, bytes);
  const raw = env.PREPROCESSING;
  if (raw === undefined) throw invalid(file, 'PREPROCESSING is missing');
  // The platform writes PREPROCESSING as a JSON string; older exports as an object.
  const pre = typeof raw === 'string' ? parseJsonFile(`${file} PREPROCESSING`, raw) : objectField(file, 'PREPROCESSING', raw);
  const warnings: string[] = [];
  let mode: ResizeMode = 'stretch';
  let paddingValue = 0;
  let width: number | null = null;
  let height: number | null = null;
  if (pre.resize !== undefined && pre.resize !== null) {
    const resize = objectField(file, 'PREPROCESSING.resize', pre.resize);
    const format = resize.format ?? 'Stretch to';
    const known = typeof format === 'string' ? RESIZE_FORMATS[format] : undefined;
    if (known) [mode, paddingValue] = known;
    else warnings.push(`unknown resize format ${JSON.stringify(format)}: using "Stretch to", as the platform's server does`);
    if (resize.width !== undefined) width = inputSideField(file, 'PREPROCESSING.resize.width', resize.width);
    if (resize.height !== undefined) height = inputSideField(file, 'PREPROCESSING.resize.height', resize.height);
  }
  const colors: Record<string, string> = {};
  if (env.COLORS !== undefined) {
    for (const [name, color] of Object.entries(objectField(file, 'COLORS', env.COLORS))) {
      if (typeof color === 'string') colors[name] = color;
    }
  }
  let classMap: Record<string, string> | null = null;
  if (env.CLASS_MAP !== undefined) {
    classMap = {};
    for (const [id, name] of Object.entries(objectField(file, 'CLASS_MAP', env.CLASS_MAP))) {
      if (typeof name === 'string') classMap[id] = name;
    }
  }
  return {
    preprocess: {
      ...parseImageSteps(file, pre),
      resize: { mode, width, height, paddingValue },
      colorMode: 'rgb',
      scalingFactor: 255,
      normalization: IMAGENET,
    },
    classMap,
    colors,
    warnings,
  };
}

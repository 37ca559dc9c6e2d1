// The preprocessing steps both package generations share: static crop, grayscale, contrast.
import type { ContrastType, PreprocessSpec } from '../pipeline/types.js';
import { enabled, invalid, numberField, objectField } from './json-file.js';

const CONTRAST_TYPES: Record<string, ContrastType> = {
  'Contrast Stretching': 'contrast-stretching',
  'Histogram Equalization': 'histogram-equalization',
  'Adaptive Equalization': 'adaptive-equalization',
};

export function parseImageSteps(
  file: string,
  steps: Record<string, unknown>,
): Pick<PreprocessSpec, 'staticCrop' | 'grayscale' | 'contrast'> {
  let staticCrop: PreprocessSpec['staticCrop'] = null;
  const crop = steps['static-crop'];
  if (enabled(crop)) {
    const c = objectField(file, 'static-crop', crop);
    const field = (key: string) => {
      const v = numberField(file, `static-crop.${key}`, c[key]);
      if (v < 0 || v > 100) throw invalid(file, `static-crop.${key} is a percentage, got ${v}`);
      return v;
    };
    staticCrop = { xMin: field('x_min'), yMin: field('y_min'), xMax: field('x_max'), yMax: field('y_max') };
    if (staticCrop.xMax <= staticCrop.xMin || staticCrop.yMax <= staticCrop.yMin) {
      throw invalid(file, 'static-crop is empty (x_max <= x_min or y_max <= y_min)');
    }
  }
  let contrast: ContrastType | null = null;
  const c = steps.contrast;
  if (enabled(c)) {
    const type = (c as { type?: unknown }).type;
    const mapped = typeof type === 'string' ? CONTRAST_TYPES[type] : undefined;
    if (mapped === undefined) {
      throw invalid(file, `contrast.type must be one of ${Object.keys(CONTRAST_TYPES).join(', ')}; got ${JSON.stringify(type)}`);
    }
    contrast = mapped;
  }
  return { staticCrop, grayscale: enabled(steps.grayscale), contrast };
}

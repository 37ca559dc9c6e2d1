// The models that ship inside the package, by name, each file a literal `new URL('…', import.meta.url)`
// on its own: bundlers (Vite, webpack) copy each file and hand back its URL, as they do for the worker,
// and without a bundler the files are found beside the package's `dist/browser/` (and the source tree's
// `src/video/`) at the same relative path.

/** The names of the bundled models. */
export type BundledModelName = 'people' | 'people-landscape' | 'shapes';

export const BUNDLED_MODELS: readonly BundledModelName[] = ['people', 'people-landscape', 'shapes'];

/** The URL of each file of a bundled model package. */
export function bundledModelUrls(name: BundledModelName): Record<string, URL> {
  switch (name) {
    case 'people':
      return {
        'weights.onnx': new URL('../../models/people/general/weights.onnx', import.meta.url),
        'inference_config.json': new URL('../../models/people/general/inference_config.json', import.meta.url),
        'class_names.txt': new URL('../../models/people/general/class_names.txt', import.meta.url),
      };
    case 'people-landscape':
      return {
        'weights.onnx': new URL('../../models/people/landscape/weights.onnx', import.meta.url),
        'inference_config.json': new URL('../../models/people/landscape/inference_config.json', import.meta.url),
        'class_names.txt': new URL('../../models/people/landscape/class_names.txt', import.meta.url),
      };
    case 'shapes':
      return {
        'weights.onnx': new URL('../../models/shapes/package/weights.onnx', import.meta.url),
        'environment.json': new URL('../../models/shapes/package/environment.json', import.meta.url),
        'class_names.txt': new URL('../../models/shapes/package/class_names.txt', import.meta.url),
        'model_type.json': new URL('../../models/shapes/package/model_type.json', import.meta.url),
      };
  }
}

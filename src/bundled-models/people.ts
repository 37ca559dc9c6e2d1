// `edgeseg/models/people`: the bundled people model, for any `model` option. Its files are named here
// alone, so that a bundler copies them only into the builds of apps that import this module.
import type { BundledModel } from '../model/bundled-model.js';

/** MediaPipe's selfie segmenter (256×256; `background`, `person`), the default of `edgeseg/node` and `createVideoEffect`. */
const people: BundledModel = {
  name: 'people',
  urls: {
    'weights.onnx': new URL('../../models/people/general/weights.onnx', import.meta.url),
    'inference_config.json': new URL('../../models/people/general/inference_config.json', import.meta.url),
    'class_names.txt': new URL('../../models/people/general/class_names.txt', import.meta.url),
  },
};

export default people;
export { people };

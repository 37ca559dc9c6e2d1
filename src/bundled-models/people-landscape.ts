// `edgeseg/models/people-landscape`: the bundled people model for 16:9 video calls, for any `model` option.
// Its files are named here alone, so that a bundler copies them only into the builds of apps that import it.
import type { BundledModel } from '../model/bundled-model.js';

/** MediaPipe's landscape selfie segmenter (256×144; `background`, `person`). */
const peopleLandscape: BundledModel = {
  name: 'people-landscape',
  urls: {
    'weights.onnx': new URL('../../models/people/landscape/weights.onnx', import.meta.url),
    'inference_config.json': new URL('../../models/people/landscape/inference_config.json', import.meta.url),
    'class_names.txt': new URL('../../models/people/landscape/class_names.txt', import.meta.url),
  },
};

export default peopleLandscape;
export { peopleLandscape };

// `edgeseg/models/shapes`: the bundled shapes model (legacy layout), for any `model` option. Its files are
// named here alone, so that a bundler copies them only into the builds of apps that import this module.
import type { BundledModel } from '../model/bundled-model.js';

/** Five synthetic shape classes (`background`, `circle`, `rectangle`, `triangle`, `star`), 256×256. */
const shapes: BundledModel = {
  name: 'shapes',
  urls: {
    'weights.onnx': new URL('../../models/shapes/package/weights.onnx', import.meta.url),
    'environment.json': new URL('../../models/shapes/package/environment.json', import.meta.url),
    'class_names.txt': new URL('../../models/shapes/package/class_names.txt', import.meta.url),
    'model_type.json': new URL('../../models/shapes/package/model_type.json', import.meta.url),
  },
};

export default shapes;
export { shapes };

// The model createVideoEffect runs where none is named: the bundled people model, imported only when an app
// calls createVideoEffect without one. The packaged build swaps in bundled-models.packaged.ts.
import type { BundledModel } from '../model/bundled-model.js';
import type { PackageFiles } from '../model/index.js';

/** In the source tree: the model's own module (its files by `new URL`), which the page's bundler serves. */
export async function defaultVideoModel(): Promise<BundledModel | { files: PackageFiles }> {
  return (await import('../bundled-models/people.js')).default;
}

// The model createVideoEffect runs where none is named, in the packaged build: the people package inline
// (base64) in a module of its own beside the bundle, `people-model.js` (scripts/build-browser.mjs writes
// it), imported only when an app calls createVideoEffect without a model. Not its files by `new URL`:
// Vite copies such a file into the build as soon as it reads the module, before tree-shaking, so every
// app would carry it; a module reached only by a dynamic import that tree-shaking drops is left out.
import type { PackageFiles } from '../model/index.js';
import { base64ToBytes } from '../payload/index.js';

export async function defaultVideoModel(): Promise<{ files: PackageFiles }> {
  // @ts-expect-error -- written beside the bundle by scripts/build-browser.mjs; the source tree has no such module
  const { files } = (await import('./people-model.js')) as { files: Record<string, string> };
  return { files: Object.fromEntries(Object.entries(files).map(([name, text]) => [name, base64ToBytes(text)])) };
}

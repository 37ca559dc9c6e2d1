// The models that ship inside the package, by name, and where they live from the installed package's root.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isBundledModelName, type BundledModelName } from '../model/bundled-model.js';

/** The package's root folder (the one whose package.json is named "edgeseg"). */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'edgeseg') return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error('edgeseg: cannot find the package root');
    dir = up;
  }
}

/**
 * The bundled models, each as the path of its package folder from the installed package's root:
 * `people` (MediaPipe's selfie segmenter, 256×256, converted by models/people/convert.py),
 * `people-landscape` (its 144×256 sibling for video calls) and `shapes` (four synthetic shapes and the
 * background, trained by models/shapes/train.py; legacy layout).
 */
export const BUNDLED_MODELS = {
  /** MediaPipe's selfie segmenter, 256×256: background and person. The default. */
  people: ['models', 'people', 'general'],
  /** Its 144×256 sibling, for video calls. */
  'people-landscape': ['models', 'people', 'landscape'],
  /** Circle, rectangle, triangle, star and the background, on synthetic scenes (legacy layout). */
  shapes: ['models', 'shapes', 'package'],
} as const satisfies Record<BundledModelName, readonly string[]>;

export { isBundledModelName, type BundledModelName };

/** The model used where none is named: the CLI, `edgeseg/node`. */
export const DEFAULT_BUNDLED_MODEL: BundledModelName = 'people';

/** The package folder of a bundled model (default: the people model). */
export function bundledModelDir(name: BundledModelName = DEFAULT_BUNDLED_MODEL): string {
  return join(packageRoot(), ...BUNDLED_MODELS[name]);
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

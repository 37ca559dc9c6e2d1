// Where the bundled default model lives, from the installed package's root.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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

/** The bundled default model (legacy layout): five shape classes, trained by models/shapes/train.py. */
export function bundledModelDir(): string {
  return join(packageRoot(), 'models', 'shapes', 'package');
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

// The test app of test/packed/app/ as files for makeToolApp (tool-app.ts), with the model package and the
// image in its public/ folder, and a way to load the app's own copy of a tool (not the repository's).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../helpers/paths.js';

export const MODEL = join(ROOT, 'models', 'shapes', 'package');
export const IMAGE = join(ROOT, 'models', 'shapes', 'samples', 'images', '00146359f63cf3aa374a.jpg');

/** The app's page and script, at `dir` in the app (`''`, `src/`), and its public files at `publicDir`. */
export function packedApp(publicDir = 'public'): { files: Record<string, string>; copy: Record<string, string> } {
  const read = (name: string) => readFileSync(join(ROOT, 'test', 'packed', 'app', name), 'utf8');
  return {
    files: { 'index.html': read('index.html'), 'main.js': read('main.js') },
    copy: { [`${publicDir}/model`]: MODEL, [`${publicDir}/image.jpg`]: IMAGE },
  };
}

/** Imports `file` (a path inside the app) as an ES module: the app's own version of a tool's API. */
export async function importFromApp<T>(appDir: string, file: string): Promise<T> {
  return (await import(pathToFileURL(join(appDir, file)).href)) as T;
}

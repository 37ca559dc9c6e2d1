// Reads a model package folder (the platform's export layout) into memory.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ModelPackageError } from '../errors/index.js';
import { PACKAGE_FILES, type PackageFiles } from '../model/index.js';

/**
 * The files of a model package folder, by name, as `{ files }` takes them: those of the platform's export
 * layout that are there (`weights.onnx`, `class_names.txt`, `environment.json` or `inference_config.json`, …).
 * Which are required is checked when the package is loaded, not here.
 *
 * @throws {@link ModelPackageError} `MODEL_FILE_MISSING` when `dir` is not a folder, holds none of those files, or one cannot be read.
 */
export async function readPackageDir(dir: string): Promise<PackageFiles> {
  const files: PackageFiles = {};
  let found = 0;
  for (const name of PACKAGE_FILES) {
    try {
      files[name] = new Uint8Array(await readFile(join(dir, name)));
      found++;
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR') throw new ModelPackageError('MODEL_FILE_MISSING', `${dir} is not a folder`, { cause });
      if (code !== 'ENOENT')
        throw new ModelPackageError('MODEL_FILE_MISSING', `could not read ${join(dir, name)}: ${(cause as Error).message}`, { cause });
    }
  }
  if (found === 0)
    throw new ModelPackageError(
      'MODEL_FILE_MISSING',
      `${dir} holds no model package files: a package folder holds a platform version's export (weights.onnx, class_names.txt, and environment.json or inference_config.json); a bundled model is given by its name ('people', 'people-landscape', 'shapes')`,
    );
  return files;
}

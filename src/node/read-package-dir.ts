// Reads a model package folder (the platform's export layout) into memory.
import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { ModelPackageError } from '../errors/index.js';
import { PACKAGE_FILES, type PackageFiles } from '../model/index.js';

/** What a model file given where a package folder belongs needs: the command that writes the package. */
const PACKAGE_COMMAND = (model: string) =>
  `write the package with: npx edgeseg package ${model} --classes background,<class>,… (the flags it asks for say how the model saw images; docs/node.md, "Packaging a model")`;

/**
 * The files of a model package folder, by name, as `{ files }` takes them: those of the platform's export
 * layout that are there (`weights.onnx`, `class_names.txt`, `environment.json` or `inference_config.json`, …).
 * Which are required is checked when the package is loaded, not here; but a model file given in place of the
 * folder, or a folder whose model is not named weights.onnx, is refused here, naming `edgeseg package`.
 *
 * @throws {@link ModelPackageError} `MODEL_FILE_MISSING` when `dir` is not a folder (a model file: saying how to
 * package it), holds none of those files, holds a model under another name than weights.onnx, or one cannot be read.
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
      if (code === 'ENOTDIR') throw notAFolder(dir, cause);
      if (code !== 'ENOENT')
        throw new ModelPackageError('MODEL_FILE_MISSING', `could not read ${join(dir, name)}: ${(cause as Error).message}`, { cause });
    }
  }
  if (!files['weights.onnx']) {
    // A model under its own name (model.onnx, u2netp.onnx): a folder of files from the wild, not yet a package.
    const models = (await readdir(dir).catch(() => [])).filter((n) => extname(n).toLowerCase() === '.onnx').sort();
    if (models.length)
      throw new ModelPackageError(
        'MODEL_FILE_MISSING',
        `${dir} holds ${models.join(', ')} but no weights.onnx: a package folder holds the model as weights.onnx, with class_names.txt and inference_config.json beside it; ${PACKAGE_COMMAND(join(dir, models[0]!))}`,
      );
  }
  if (found === 0)
    throw new ModelPackageError(
      'MODEL_FILE_MISSING',
      `${dir} holds no model package files: a package folder holds a platform version's export (weights.onnx, class_names.txt, and environment.json or inference_config.json); a bundled model is given by its name ('people', 'people-landscape', 'shapes')`,
    );
  return files;
}

function notAFolder(path: string, cause: unknown): ModelPackageError {
  const ext = extname(path).toLowerCase();
  if (ext === '.onnx')
    return new ModelPackageError(
      'MODEL_FILE_MISSING',
      `${path} is a model file, not a package folder: edgeseg needs to know its classes and how it saw images, which a package folder says (weights.onnx, class_names.txt, inference_config.json); ${PACKAGE_COMMAND(path)}`,
      { cause },
    );
  if (ext === '.tflite')
    return new ModelPackageError(
      'MODEL_FILE_MISSING',
      `${path} is a TensorFlow Lite model, and edgeseg runs ONNX models in package folders: convert it to ONNX (python -m tf2onnx.convert --tflite ${path} --output model.onnx), then package it with: npx edgeseg package model.onnx --classes background,<class>,…`,
      { cause },
    );
  return new ModelPackageError('MODEL_FILE_MISSING', `${path} is not a folder`, { cause });
}

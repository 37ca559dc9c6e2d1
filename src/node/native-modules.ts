// onnxruntime-node and sharp, the native modules of the Node entry and the command line. They are optional
// peer dependencies, so that a web app that installs edgeseg gets no native module; loaded once, here, so
// that a Node program without them fails on import with one clear error that names the command to run.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { BackendError } from '../errors/index.js';
import { isNotFound, nativeInstallCommand } from './native-install.js';

type OrtNode = typeof import('onnxruntime-node');
type Sharp = typeof import('sharp');

/**
 * A native module from the project, else from `EDGESEG_NATIVE_DIR` (a folder whose node_modules holds
 * it: where the command line, run through npx, installs them once); undefined where neither has it.
 */
async function importNative<T>(name: string): Promise<T | undefined> {
  try {
    return (await import(name)) as T;
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  const dir = process.env.EDGESEG_NATIVE_DIR;
  if (!dir) return undefined;
  try {
    // A CommonJS module, seen as `import()` would show it: its exports, and the whole as `default`.
    const exported = createRequire(join(dir, 'package.json'))(name) as object;
    return { ...exported, default: exported } as T;
  } catch (error) {
    if (!isNotFound(error)) throw error;
    return undefined;
  }
}

async function loadNative(): Promise<{ ort: OrtNode; sharp: Sharp['default'] }> {
  const ort = await importNative<OrtNode>('onnxruntime-node');
  const sharp = await importNative<Sharp>('sharp');
  if (!ort || !sharp) {
    const missing = [!ort && 'onnxruntime-node', !sharp && 'sharp'].filter(Boolean).join(' and ');
    throw new BackendError(
      'NATIVE_MODULE_MISSING',
      `edgeseg/node and the edgeseg command line need ${missing}, which edgeseg does not install (so that a web app gets no native module): run \`${nativeInstallCommand()}\``,
      { backend: 'native' },
    );
  }
  return { ort, sharp: sharp.default };
}

export const { ort, sharp } = await loadNative();

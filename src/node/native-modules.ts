// onnxruntime-node and sharp, the native modules of the Node entry and the command line. They are optional
// peer dependencies, so that a web app that installs edgeseg gets no native module; loaded once, here, so
// that a Node program without them fails on import with one clear error that names the command to run.
import { BackendError } from '../errors/index.js';
import { nativeInstallCommand } from './native-install.js';

type OrtNode = typeof import('onnxruntime-node');
type Sharp = typeof import('sharp');

const isNotFound = (error: unknown) => (error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND';

async function loadNative(): Promise<{ ort: OrtNode; sharp: Sharp['default'] }> {
  const missing: string[] = [];
  const load = async <T>(name: string, importer: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await importer();
    } catch (error) {
      if (!isNotFound(error)) throw error;
      missing.push(name);
      return undefined;
    }
  };
  const ort = await load('onnxruntime-node', () => import('onnxruntime-node'));
  const sharp = await load('sharp', () => import('sharp'));
  if (!ort || !sharp) {
    throw new BackendError(
      'NATIVE_MODULE_MISSING',
      `edgeseg/node and the edgeseg command line need ${missing.join(' and ')}, which edgeseg does not install (so that a web app gets no native module): run \`${nativeInstallCommand()}\``,
      { backend: 'native' },
    );
  }
  return { ort, sharp: sharp.default };
}

export const { ort, sharp } = await loadNative();

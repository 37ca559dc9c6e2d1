// What to install for the Node entry and the command line: the native optional peer dependencies, at the
// versions this package's manifest asks for. Its own module: it must load where they are missing.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './bundled-model.js';

const NATIVE = ['onnxruntime-node', 'sharp'] as const;

/** Whether an import failed because the module is not installed (ES module or CommonJS resolution). */
export const isNotFound = (error: unknown) =>
  ['ERR_MODULE_NOT_FOUND', 'MODULE_NOT_FOUND'].includes((error as { code?: string }).code ?? '');

/** `npm install` of the native modules, at the versions this package asks for. */
export function nativeInstallCommand(): string {
  // Quoted where a shell would read the range (zsh's `^`, `<`, `>`).
  return `npm install ${nativeInstallSpecs()
    .map((spec) => (/^[\w@./:-]+$/.test(spec) ? spec : `"${spec}"`))
    .join(' ')}`;
}

/** `name@range` of each native module, from this package's peerDependencies. */
export function nativeInstallSpecs(): string[] {
  return NATIVE.map(installSpec);
}

/** `name@range` of one optional peer dependency, at the range this package's manifest asks for. */
export function installSpec(name: string): string {
  const manifest = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { peerDependencies?: Record<string, string> };
  return `${name}@${manifest.peerDependencies?.[name] ?? 'latest'}`;
}

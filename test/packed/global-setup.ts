// Once per run of the `packed` project: pack edgeseg as it would be published, install the tarball into a
// fresh app outside the repository (the test app of test/packed/app/, with a model package and an image
// in its public/ folder), and take the command line's payload for that package and image. Every test file
// then builds or serves that one installed app its own way.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureBuilt, runCli } from '../helpers/built-cli.js';
import { ROOT } from '../helpers/paths.js';
import type { PagePayload } from './run-page.js';

declare module 'vitest' {
  export interface ProvidedContext {
    packed: PackedApp;
  }
}

export interface PackedApp {
  /** The app's folder: package.json, index.html, main.js, public/{model/, image.jpg}, node_modules/edgeseg. */
  appDir: string;
  /** The command line's payload for public/image.jpg with public/model/. */
  cliPayload: PagePayload;
  /** What `npm install <tarball>` put into the app's node_modules. */
  installed: { packages: string[]; megabytes: number };
  /** The packed edgeseg, for apps on other tools (tool-app.ts). */
  tarball: string;
}

const MODEL = join(ROOT, 'models', 'shapes', 'package');
const IMAGE = join(ROOT, 'models', 'shapes', 'samples', 'images', '00146359f63cf3aa374a.jpg');

export default async function setup(project: TestProject): Promise<() => void> {
  ensureBuilt();
  const work = mkdtempSync(join(tmpdir(), 'edgeseg-packed-'));
  const npm = (args: string[], cwd: string) =>
    execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
  // dist/ is built already (npm test builds it first): packing needs no scripts.
  const tarball = join(work, npm(['pack', '--ignore-scripts', '--pack-destination', work], ROOT).trim().split('\n').pop()!);

  const appDir = join(work, 'app');
  cpSync(join(ROOT, 'test', 'packed', 'app'), appDir, { recursive: true });
  mkdirSync(join(appDir, 'public'));
  cpSync(MODEL, join(appDir, 'public', 'model'), { recursive: true });
  cpSync(IMAGE, join(appDir, 'public', 'image.jpg'));
  writeFileSync(join(appDir, 'package.json'), JSON.stringify({ name: 'edgeseg-packed-app', private: true, type: 'module' }));
  // The app's tools (Vite, webpack) are the repository's: the app installs edgeseg alone, as a web app would
  // add it, from the tarball; its dependencies come from npm's cache where it has them.
  npm(['install', '--prefer-offline', tarball], appDir);

  const cli = await runCli(['segment', IMAGE, '--model', MODEL]);
  if (cli.code !== 0) throw new Error(`edgeseg segment failed: ${cli.stderr}`);
  const modules = join(appDir, 'node_modules');
  const packages = readdirSync(modules).filter((name) => !name.startsWith('.'));
  const megabytes = Number(execFileSync('du', ['-sm', modules]).toString().split('\t')[0]);
  project.provide('packed', {
    appDir,
    cliPayload: JSON.parse(cli.stdout.toString()) as PagePayload,
    installed: { packages, megabytes },
    tarball,
  });
  return () => rmSync(work, { recursive: true, force: true });
}

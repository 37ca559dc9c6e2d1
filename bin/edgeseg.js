#!/usr/bin/env node
// The `edgeseg` command line; the code lives in src/node/cli.ts and is compiled by `npm run build:lib`.
// onnxruntime-node and sharp are optional peer dependencies (web apps must not get native modules). Run
// through `npx` where they are missing, the command runs itself again with them added (npx's own cache,
// nothing written to the project); anywhere else it says the one command to run.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
let cli;
try {
  cli = await import('../dist/src/node/cli.js');
} catch (error) {
  if (error?.code !== 'NATIVE_MODULE_MISSING') throw error;
  const viaNpx = process.env.npm_command === 'exec' && !process.env.EDGESEG_NATIVE_ADDED;
  if (!viaNpx) {
    console.error(`edgeseg: ${error.message}`);
    process.exit(1);
  }
  const { nativeInstallSpecs } = await import('../dist/src/node/native-install.js');
  const self = join(dirname(fileURLToPath(import.meta.url)), '..');
  const packages = [self, ...nativeInstallSpecs()].flatMap((spec) => ['--package', spec]);
  console.error('edgeseg: adding onnxruntime-node and sharp for this run (npx)…');
  const run = spawnSync('npx', ['--yes', ...packages, 'edgeseg', ...args], { stdio: 'inherit', env: { ...process.env, EDGESEG_NATIVE_ADDED: '1' } });
  process.exit(run.status ?? 1);
}
process.exitCode = await cli.main(args);

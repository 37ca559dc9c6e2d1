#!/usr/bin/env node
// The `edgeseg` command line; the code lives in src/cli/cli.ts and is compiled by `npm run build:lib`.
// onnxruntime-node and sharp are optional peer dependencies (a web app must not get native modules). Run
// through npx where the project lacks them, the command installs them once into edgeseg's cache folder
// and runs again with them; run any other way, it says the one command to run.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
// A web app's command: it copies files and needs none of the native modules that a web app lacks.
if (args[0] === 'copy-runtime') {
  const [{ copyRuntimeCommand }, { UsageError }] = await Promise.all([
    import('../dist/src/cli/copy-runtime.js'),
    import('../dist/src/cli/usage-error.js'),
  ]);
  try {
    copyRuntimeCommand(args.slice(1), (s) => process.stdout.write(s));
  } catch (error) {
    console.error(`edgeseg: ${error.message}`);
    process.exit(error instanceof UsageError ? 2 : 1);
  }
  process.exit(0);
}
let cli;
try {
  cli = await import('../dist/src/cli/cli.js');
} catch (error) {
  if (error?.code !== 'NATIVE_MODULE_MISSING') throw error;
  if (process.env.npm_command !== 'exec' || process.env.EDGESEG_NATIVE_DIR) {
    console.error(`edgeseg: ${error.message}`);
    process.exit(1);
  }
  const [{ nativeInstallSpecs }, { defaultCacheDir }, { packageVersion }] = await Promise.all([
    import('../dist/src/node/native-install.js'),
    import('../dist/src/node/directory-cache.js'),
    import('../dist/src/node/bundled-model.js'),
  ]);
  const dir = join(defaultCacheDir(), `native-${packageVersion()}`);
  if (!existsSync(join(dir, 'node_modules', 'sharp')) || !existsSync(join(dir, 'node_modules', 'onnxruntime-node'))) {
    console.error(`edgeseg: installing onnxruntime-node and sharp once, into ${dir} (npx)…`);
    // No install scripts: onnxruntime-node ships its CPU build (its script fetches only GPU parts), sharp its prebuilt libvips.
    const install = spawnSync(
      'npm',
      ['install', '--prefix', dir, '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', ...nativeInstallSpecs()],
      { stdio: ['ignore', 2, 2] },
    );
    if (install.status !== 0) {
      console.error(`edgeseg: that failed; ${error.message}`);
      process.exit(1);
    }
  }
  const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url), ...args], {
    stdio: 'inherit',
    env: { ...process.env, EDGESEG_NATIVE_DIR: dir },
  });
  process.exit(run.status ?? 1);
}
// Only the allow-listed formats' libvips loaders, in this process (the command reads files it is handed).
cli.restrictImageLoaders();
process.exitCode = await cli.main(args);

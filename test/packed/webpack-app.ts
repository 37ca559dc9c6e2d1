// webpack for the packed-package tests: the app's entry (main.js) and nothing about edgeseg in the config.
import { join } from 'node:path';
import type { Configuration } from 'webpack';

export function webpackConfig(appDir: string, mode: 'production' | 'development'): Configuration {
  return {
    mode,
    context: appDir,
    entry: './main.js',
    output: { path: join(appDir, `out-webpack-${mode}`), clean: true },
    infrastructureLogging: { level: 'warn' },
  };
}

/** webpack's warnings, less its performance hints (an asset over 244 KiB: the WASM runtime is 14 MB, and says so itself). */
export function warningsOf(stats: { toJson(options: object): { warnings?: Array<{ message: string }> } }): string[] {
  const { warnings = [] } = stats.toJson({ all: false, warnings: true });
  return warnings
    .filter((w) => !/^(asset size limit|entrypoint size limit|webpack performance recommendations)/.test(w.message))
    .map((w) => w.message);
}

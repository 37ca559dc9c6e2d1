import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSegmenter, decodeImage, decodeMaskPng, rawFromPayload } from '../../src/node/index.js';
import type { SegmentationPayload } from '../../src/payload/index.js';
import type { PreprocessSpec } from '../../src/pipeline/index.js';
import { compareClassIds, fixturePath, loadUint8, manifest } from '../fixtures/reference/fixtures.js';
import { ensureBuilt, runCli } from '../helpers/built-cli.js';
import { parseJson, readJsonFile } from '../helpers/json.js';
import { ROOT, TINY } from '../helpers/paths.js';

/** What `edgeseg info --json` prints, the parts these tests read. */
interface InfoJson {
  task: string | null;
  modelType: string | null;
  classes: string[];
  preprocess: PreprocessSpec;
}

let dir: string;
beforeAll(async () => {
  ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'edgeseg-cli-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const jpegCase = manifest.endToEnd.find((c) => c.file.endsWith('.jpg') && c.package === 'tiny-legacy' && c.confidence === 50)!;

describe('edgeseg segment', () => {
  for (const backend of ['native', 'wasm']) {
    test(`prints the reference payload (--backend ${backend})`, async () => {
      // --threads 2: more than one thread must not break onnxruntime-web in Node (it runs one).
      const r = await runCli([
        'segment',
        fixturePath(jpegCase.file),
        '--model',
        TINY('tiny-legacy'),
        '--confidence',
        '50',
        '--backend',
        backend,
        '--threads',
        '2',
      ]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const payload = parseJson<SegmentationPayload>(r.stdout);
      expect(Object.keys(payload).sort()).toEqual(['class_map', 'image', 'segmentation_mask']);
      expect(payload.image).toEqual({ width: jpegCase.width, height: jpegCase.height });
      const { wrong } = compareClassIds(rawFromPayload(payload).classIds, loadUint8(jpegCase.classIds), loadUint8(jpegCase.ambiguous));
      expect(wrong).toBe(0);
    });
  }

  test('--out writes the mask PNG and --overlay the blended image; --quiet prints nothing', async () => {
    const mask = join(dir, 'mask.png');
    const overlay = join(dir, 'overlay.png');
    const r = await runCli([
      'segment',
      fixturePath(jpegCase.file),
      '-m',
      TINY('tiny-legacy'),
      '--out',
      mask,
      '--overlay',
      overlay,
      '--quiet',
      '--timings',
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBe(0);
    expect(r.stderr).toMatch(
      /decode [\d.]+ ms · preprocess [\d.]+ ms · run [\d.]+ ms · postprocess [\d.]+ ms · encode [\d.]+ ms \(native\)/,
    );
    const ids = decodeMaskPng(new Uint8Array(await readFile(mask)));
    expect(compareClassIds(ids.classIds, loadUint8(jpegCase.classIds), loadUint8(jpegCase.ambiguous)).wrong).toBe(0);
    const blended = await decodeImage(await readFile(overlay));
    const original = await decodeImage(await readFile(fixturePath(jpegCase.file)));
    expect([blended.width, blended.height]).toEqual([original.width, original.height]);
    // Background pixels are untouched; others moved halfway towards their class colour.
    let changed = 0;
    for (let p = 0; p < ids.classIds.length; p++) {
      const same = [0, 1, 2].every((c) => blended.data[p * 3 + c] === original.data[p * 3 + c]);
      if (ids.classIds[p] === 0) expect(same).toBe(true);
      else if (!same) changed++;
    }
    expect(changed).toBeGreaterThan(0);
  });
});

describe('the bundled models', () => {
  const photo = join(ROOT, 'models', 'people', 'samples', 'images', 'astronaut.png');

  test('edgeseg segment without --model runs the people model, from any working directory', async () => {
    const r = await runCli(['segment', photo], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const payload = parseJson<SegmentationPayload>(r.stdout);
    expect(payload.class_map).toEqual({ '0': 'background', '1': 'person' });
    // The same answer as the people package loaded by path: whatever its weights are today.
    const seg = await createSegmenter({ model: join(ROOT, 'models', 'people', 'general') });
    try {
      expect(payload).toEqual(await seg.segment(photo));
    } finally {
      await seg.dispose();
    }
  });

  test.each([
    ['people-landscape', join('models', 'people', 'landscape'), { '0': 'background', '1': 'person' }],
    ['shapes', join('models', 'shapes', 'package'), { '0': 'background', '1': 'circle', '2': 'rectangle', '3': 'triangle', '4': 'star' }],
  ])('--model %s runs that bundled model', async (name, folder, classMap) => {
    const r = await runCli(['segment', photo, '--model', name], { cwd: dir });
    expect(r.code).toBe(0);
    const payload = parseJson<SegmentationPayload>(r.stdout);
    expect(payload.class_map).toEqual(classMap);
    const seg = await createSegmenter({ model: join(ROOT, folder) });
    try {
      expect(payload).toEqual(await seg.segment(photo));
    } finally {
      await seg.dispose();
    }
  });

  test('edgeseg info without --model describes the people model; --model shapes the shapes model', async () => {
    const r = await runCli(['info'], { cwd: dir });
    expect(r.code).toBe(0);
    const text = r.stdout.toString();
    expect(text).toMatch(/^package: +current export \(inference_config\.json\)$/m);
    expect(text).toMatch(/^input: +256×256, stretch, RGB$/m);
    expect(text).toMatch(/^normalise: +none$/m);
    expect(parseJson<InfoJson>((await runCli(['info', '--json'], { cwd: dir })).stdout).classes).toEqual(['background', 'person']);
    const json = parseJson<InfoJson>((await runCli(['info', '--model', 'shapes', '--json'], { cwd: dir })).stdout);
    expect([json.task, json.modelType]).toEqual(['semantic-segmentation', 'edgeseg-shapes']);
    expect(json.classes).toEqual(['background', 'circle', 'rectangle', 'triangle', 'star']);
  });
});

describe('edgeseg info', () => {
  test('lists classes, input size and preprocessing', async () => {
    const r = await runCli(['info', '--model', TINY('tiny-current')]);
    expect(r.code).toBe(0);
    expect(r.stdout.toString()).toMatch(/input: +56×40, stretch, BGR/);
    expect(r.stdout.toString()).toMatch(/static crop: +x 10–95%, y 5–90%/);
    const json = parseJson<InfoJson>((await runCli(['info', '--model', TINY('tiny-legacy'), '--json'])).stdout);
    expect(json.classes).toEqual(['background', 'circle', 'rectangle', 'triangle', 'star']);
    expect(json.preprocess.resize).toEqual({ mode: 'letterbox', width: 64, height: 48, paddingValue: 0 });
  });
});

describe('exit codes', () => {
  test.each([
    [['--help'], 0, ''],
    [[], 2, ''],
    [['frobnicate'], 2, 'unknown command'],
    [['segment'], 2, 'exactly one image'],
    [['segment', 'a.jpg', '--backend', 'gpu'], 2, '--backend'],
    [['segment', 'a.jpg', '--confidence', 'lots'], 2, '--confidence'],
    [['segment', 'a.jpg', '--confidence', '101', '--model', TINY('tiny-legacy')], 3, 'CONFIDENCE_INVALID'],
    [['segment', '/nonexistent.jpg', '--model', TINY('tiny-legacy')], 3, 'IMAGE_SOURCE_INVALID'],
    [['segment', fixturePath('README.md'), '--model', TINY('tiny-legacy')], 3, 'IMAGE_FORMAT_UNSUPPORTED'],
    [['segment', fixturePath(jpegCase.file), '--model', '/nonexistent-model'], 4, 'MODEL_FILE_MISSING'],
  ] as [string[], number, string][])('edgeseg %j → %i', async (args, code, stderr) => {
    const r = await runCli(args);
    expect(r.code).toBe(code);
    expect(r.stderr).toContain(stderr);
  });

  test('--version prints the package version', async () => {
    const { version } = await readJsonFile<{ version: string }>(join(process.cwd(), 'package.json'));
    expect((await runCli(['--version'])).stdout.toString().trim()).toBe(version);
  });
});

// The bundled default model runs in Node through the public Node entry, in both export layouts. Nothing
// here pins its mask values: the weights may be retrained; the checks hold for any model worth shipping.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSegmenter, decodeMaskPng, rawFromPayload, type NodeSegmenter } from '../../../src/node/index.js';
import { ROOT } from '../../helpers/paths.js';

const SHAPES = join(ROOT, 'models', 'shapes');
const CLASSES = ['background', 'circle', 'rectangle', 'triangle', 'star'];

interface SampleImage {
  file: string;
  mask: string;
  width: number;
  height: number;
  split: string;
}

let samples: SampleImage[];
let legacy: NodeSegmenter;
let current: NodeSegmenter;
beforeAll(async () => {
  const manifest = JSON.parse(await readFile(join(SHAPES, 'samples', 'manifest.json'), 'utf8')) as {
    classes: string[];
    images: SampleImage[];
  };
  expect(manifest.classes).toEqual(CLASSES);
  // Held-out images of several sizes (landscape and portrait), not ones the model was trained on.
  samples = manifest.images.filter((i) => i.split === 'test');
  legacy = await createSegmenter({ model: join(SHAPES, 'package') });
  current = await createSegmenter({ model: join(SHAPES, 'package-current') });
});
afterAll(async () => {
  await legacy?.dispose();
  await current?.dispose();
});

describe('the bundled shapes model in Node', () => {
  test('both layouts load with the same classes and input, and no warnings', () => {
    expect(legacy.spec.generation).toBe('legacy');
    expect(current.spec.generation).toBe('current');
    for (const seg of [legacy, current]) {
      expect(seg.backend).toBe('native');
      expect(seg.classNames).toEqual(CLASSES);
      expect(seg.spec.backgroundClassId).toBe(0);
      expect(seg.warnings).toEqual([]);
    }
    expect(current.spec.preprocess.resize).toEqual(legacy.spec.preprocess.resize);
    // The legacy package says what model_type.json says; the current layout has no such file.
    expect([legacy.spec.task, legacy.spec.modelType]).toEqual(['semantic-segmentation', 'edgeseg-shapes']);
  });

  test('legacy and current layouts give identical payloads on the held-out samples', async () => {
    expect(samples.length).toBeGreaterThanOrEqual(3);
    expect(new Set(samples.map((s) => `${s.width}×${s.height}`)).size).toBeGreaterThanOrEqual(2);
    for (const sample of samples) {
      const path = join(SHAPES, 'samples', sample.file);
      const a = await legacy.segment(path);
      const b = await current.segment(path);
      expect(b, sample.file).toEqual(a);
      expect(a.image).toEqual({ width: sample.width, height: sample.height });
      expect(a.class_map).toEqual(Object.fromEntries(CLASSES.map((c, i) => [String(i), c])));
    }
  });

  test('its masks agree with the samples’ annotations and use every class', async () => {
    let agree = 0;
    let total = 0;
    const found = new Set<number>();
    for (const sample of samples) {
      const { classIds, width, height } = rawFromPayload(await legacy.segment(join(SHAPES, 'samples', sample.file)));
      const truth = decodeMaskPng(new Uint8Array(await readFile(join(SHAPES, 'samples', sample.mask))));
      expect([width, height]).toEqual([truth.width, truth.height]);
      for (let p = 0; p < classIds.length; p++) {
        if (classIds[p] === truth.classIds[p]) agree++;
        found.add(classIds[p]!);
      }
      total += classIds.length;
    }
    // A loose floor: the shipped model scores about 0.98 here and an all-background mask 0.78. It catches
    // weights that do not segment through this pipeline (garbage, the wrong class order); small
    // preprocessing errors barely move it (the model is robust to them), the reference fixtures catch those.
    expect(agree / total).toBeGreaterThan(0.9);
    expect([...found].sort()).toEqual([0, 1, 2, 3, 4]);
  });
});

describe('the bundled people models in Node', () => {
  const PEOPLE = join(ROOT, 'models', 'people');
  const photos = ['astronaut.png', 'camera.png', 'grace_hopper.jpg'].map((f) => join(PEOPLE, 'samples', 'images', f));
  const personShare = (classIds: Uint8Array) => classIds.reduce((n, c) => n + c, 0) / classIds.length;

  test('createSegmenter() with no model is the people model; the names reach each bundled package', async () => {
    const byDefault = await createSegmenter();
    const general = await createSegmenter({ model: 'people' });
    const landscape = await createSegmenter({ model: 'people-landscape' });
    const shapes = await createSegmenter({ model: 'shapes' });
    try {
      expect(byDefault.classNames).toEqual(['background', 'person']);
      expect(byDefault.warnings).toEqual([]);
      expect(byDefault.spec.preprocess.resize).toMatchObject({ mode: 'stretch', width: 256, height: 256 });
      expect(landscape.spec.preprocess.resize).toMatchObject({ mode: 'stretch', width: 256, height: 144 });
      expect(shapes.classNames).toEqual(CLASSES);
      expect(await byDefault.segment(photos[0]!)).toEqual(await general.segment(photos[0]!));
    } finally {
      for (const s of [byDefault, general, landscape, shapes]) await s.dispose();
    }
  });

  test('on the sample photos the person is found, and both variants agree on most pixels', async () => {
    const general = await createSegmenter({ model: 'people' });
    const landscape = await createSegmenter({ model: 'people-landscape' });
    try {
      for (const photo of photos) {
        const a = (await general.segmentRaw(photo)).classIds;
        const b = (await landscape.segmentRaw(photo)).classIds;
        // Each photo is a portrait: the person covers a large part of the frame, not all of it.
        expect(personShare(a), photo).toBeGreaterThan(0.25);
        expect(personShare(a), photo).toBeLessThan(0.75);
        let both = 0;
        let either = 0;
        for (let i = 0; i < a.length; i++) {
          both += a[i]! & b[i]!;
          either += a[i]! | b[i]!;
        }
        expect(both / either, `${photo}: IoU of the two variants' person masks`).toBeGreaterThan(0.9);
      }
    } finally {
      await general.dispose();
      await landscape.dispose();
    }
  });
});

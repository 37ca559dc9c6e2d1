// A segmenter asked for with no usable model says what to write: the import of the bundled people model
// (which needs no account) and the other forms a model takes, in the browser entry and in Node.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { createSegmenter, type SegmenterOptions } from '../../src/index.js';
import { parseModelPackage } from '../../src/model/index.js';
import {
  createSegmenter as createNodeSegmenter,
  ModelPackageError,
  readPackageDir,
  type NodeSegmenterOptions,
} from '../../src/node/index.js';
import { TINY } from '../helpers/paths.js';

const refusal = async (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e as { name: string; code: string; message: string },
  );

const PEOPLE = "import people from 'edgeseg/models/people' and pass { model: people }";

describe('the browser entry', () => {
  test.each([
    ['no options', undefined],
    ['no model', {}],
    ['model undefined', { model: undefined }],
  ])('%s: createSegmenter needs { model }, and the message says what to import or write', async (_, options) => {
    const error = await refusal(createSegmenter(options as unknown as SegmenterOptions));
    expect([error.name, error.code]).toEqual(['InvalidInputError', 'OPTION_INVALID']);
    expect(error.message).toBe(
      `createSegmenter needs { model }: ${PEOPLE}, or a package URL ('./my-model/'), { files }, or { workspace, project, version } with a platform`,
    );
  });

  test.each([
    ['null', null],
    ['a number', 42],
    ['an object of no known form', { path: './m/' }],
  ])('a model that is %s: the forms a model takes, not a TypeError', async (_, model) => {
    const error = await refusal(createSegmenter({ model } as unknown as SegmenterOptions));
    expect([error.name, error.code]).toEqual(['InvalidInputError', 'OPTION_INVALID']);
    expect(error.message).toBe(
      `model is none of the forms a model takes: ${PEOPLE}, or a package URL ('./my-model/'), { files }, or { workspace, project, version } with a platform`,
    );
  });

  test('a platform version with no platform: how to pass one, and the model that needs no account', async () => {
    const error = await refusal(createSegmenter({ model: { workspace: 'w', project: 'p', version: 1 } }));
    expect([error.name, error.code]).toEqual(['InvalidInputError', 'OPTION_INVALID']);
    expect(error.message).toContain('pass { platform: new PlatformClient({ apiKey }) }');
    expect(error.message).toContain(PEOPLE);
  });
});

describe('edgeseg/node', () => {
  const FORMS =
    "leave model out for the bundled people model, or give a bundled model's name ('people', 'people-landscape', 'shapes') or value (import people from 'edgeseg/models/people' and pass { model: people }), a package folder ('./my-model'), { files }, or { url }";

  test('options that are not an object (a model name in their place): the call to write', async () => {
    // It ran the people model, the string ignored.
    const error = await refusal(createNodeSegmenter('shapes' as unknown as NodeSegmenterOptions));
    expect([error.name, error.code]).toEqual(['InvalidInputError', 'OPTION_INVALID']);
    expect(error.message).toBe(
      `createSegmenter takes its options as an object: createSegmenter({ model: 'shapes' }), or createSegmenter() for the bundled people model; ${FORMS}`,
    );
    const none = await refusal(createNodeSegmenter(null as unknown as NodeSegmenterOptions));
    expect(none.code).toBe('OPTION_INVALID');
    expect(none.message).toContain("createSegmenter({ model: 'people' })");
  });

  test('a model of no known form: its code kept, the forms in the message', async () => {
    const error = await refusal(createNodeSegmenter({ model: null } as unknown as NodeSegmenterOptions));
    expect([error.name, error.code]).toEqual(['ModelPackageError', 'MODEL_FILE_MISSING']);
    expect(error.message).toBe(`model is none of the forms a model takes: ${FORMS}`);
  });

  test('a folder with no package files: what a package folder holds, and the bundled names', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'edgeseg-empty-'));
    try {
      const error = await refusal(createNodeSegmenter({ model: dir }));
      expect([error.name, error.code]).toEqual(['ModelPackageError', 'MODEL_FILE_MISSING']);
      expect(error.message).toBe(
        `${dir} holds no model package files: a package folder holds a platform version's export (weights.onnx, class_names.txt, and environment.json or inference_config.json); a bundled model is given by its name ('people', 'people-landscape', 'shapes')`,
      );
    } finally {
      await rm(dir, { recursive: true });
    }
  });

  const PACKAGE = (model: string) =>
    `write the package with: npx edgeseg package ${model} --classes background,<class>,… (the flags it asks for say how the model saw images; docs/node.md, "Packaging a model")`;

  test('a model file given as the model: what a package holds, and the edgeseg package command for it', async () => {
    const model = join(TINY('forms/sigmoid'), 'weights.onnx');
    const error = await refusal(createNodeSegmenter({ model }));
    expect([error.name, error.code]).toEqual(['ModelPackageError', 'MODEL_FILE_MISSING']);
    expect(error.message).toBe(
      `${model} is a model file, not a package folder: edgeseg needs to know its classes and how it saw images, which a package folder says (weights.onnx, class_names.txt, inference_config.json); ${PACKAGE(model)}`,
    );
  });

  test('a TensorFlow Lite file given as the model: convert it, then package it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'edgeseg-tflite-'));
    try {
      const model = join(dir, 'selfie_segmentation.tflite');
      await writeFile(model, 'TFL3');
      const error = await refusal(createNodeSegmenter({ model }));
      expect([error.name, error.code]).toEqual(['ModelPackageError', 'MODEL_FILE_MISSING']);
      expect(error.message).toBe(
        `${model} is a TensorFlow Lite model, and edgeseg runs ONNX models in package folders: convert it to ONNX (python -m tf2onnx.convert --tflite ${model} --output model.onnx), then package it with: npx edgeseg package model.onnx --classes background,<class>,…`,
      );
    } finally {
      await rm(dir, { recursive: true });
    }
  });

  test.each([
    ['alone', []],
    ['beside class_names.txt', ['class_names.txt']],
  ])('a folder whose model is not named weights.onnx (%s): the edgeseg package command for it', async (_, others) => {
    const dir = await mkdtemp(join(tmpdir(), 'edgeseg-wild-'));
    try {
      await writeFile(join(dir, 'model.onnx'), await readFile(join(TINY('forms/sigmoid'), 'weights.onnx')));
      for (const name of others) await writeFile(join(dir, name), 'background\nshape\n');
      const error = await refusal(createNodeSegmenter({ model: dir }));
      expect([error.name, error.code]).toEqual(['ModelPackageError', 'MODEL_FILE_MISSING']);
      expect(error.message).toBe(
        `${dir} holds model.onnx but no weights.onnx: a package folder holds the model as weights.onnx, with class_names.txt and inference_config.json beside it; ${PACKAGE(join(dir, 'model.onnx'))}`,
      );
    } finally {
      await rm(dir, { recursive: true });
    }
  });

  test('a refusal of the model itself reaches the caller as the package reader wrote it: class, code, message', async () => {
    const files = await readPackageDir(TINY('forms/clip'));
    let expected: unknown;
    try {
      parseModelPackage(files);
    } catch (error) {
      expected = error;
    }
    expect(expected).toMatchObject({ name: 'ModelPackageError', code: 'MODEL_OUTPUT_SHAPE' });
    for (const model of [TINY('forms/clip'), { files }]) {
      const error = await refusal(createNodeSegmenter({ model }));
      expect(error).toBeInstanceOf(ModelPackageError);
      expect([error.code, error.message]).toEqual([(expected as ModelPackageError).code, (expected as Error).message]);
    }
  });
});

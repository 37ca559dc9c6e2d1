// Fuzzing the model package parser: mutated legacy environment.json and current inference_config.json, odd
// class_names.txt, any bytes as weights. A package either parses into a spec the pipeline can run (checked
// by preprocessing an image with it) or is refused with a ModelPackageError and a known code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { EdgesegError, ModelPackageError } from '../../../src/errors/index.js';
import { checkModelShapes, parseModelPackage, readOnnxModel, type PackageFiles } from '../../../src/model/index.js';
import { preprocess } from '../../../src/pipeline/index.js';
import { MAX_INPUT_SIDE } from '../../../src/model/json-file.js';
import { fuzzParams } from '../../helpers/fuzz.js';
import { ROOT, TINY } from '../../helpers/paths.js';

const MODEL_CODES = [
  'MODEL_FILE_MISSING',
  'MODEL_JSON_MALFORMED',
  'MODEL_CONFIG_INVALID',
  'MODEL_NO_CLASSES',
  'MODEL_TOO_MANY_CLASSES',
  'MODEL_INPUT_SHAPE',
  'MODEL_OUTPUT_SHAPE',
  'MODEL_LOAD_FAILED',
];
const read = (dir: string, file: string) => new Uint8Array(readFileSync(join(dir, file)));
const weights = read(TINY('tiny-legacy'), 'weights.onnx');
const legacyEnvs = [TINY('tiny-legacy'), join(ROOT, 'models', 'shapes', 'package')].map(
  (d) => JSON.parse(new TextDecoder().decode(read(d, 'environment.json'))) as Record<string, unknown>,
);
const currentConfig = JSON.parse(new TextDecoder().decode(read(TINY('tiny-current'), 'inference_config.json'))) as Record<string, unknown>;
const classNames = read(TINY('tiny-legacy'), 'class_names.txt');
const enc = (s: string) => new TextEncoder().encode(s);

/** Every path to a value inside a JSON value (objects and arrays), the root included. */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out = [prefix];
  if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...prefix, Array.isArray(value) ? Number(k) : k]));
  return out;
}

/** `value` with the thing at `path` replaced (or deleted, for `undefined`). */
function replaced(value: unknown, path: (string | number)[], by: unknown): unknown {
  if (path.length === 0) return by;
  const copy = (Array.isArray(value) ? [...(value as unknown[])] : { ...(value as object) }) as Record<string | number, unknown>;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  if (rest.length === 0 && by === undefined) delete copy[head];
  else copy[head] = replaced(copy[head], rest, by);
  return copy;
}

/** Values packages have been seen to hold where numbers or names belong, and values no package should. */
const oddValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(
    undefined,
    null,
    '',
    '560',
    ' 64 ',
    '-1',
    '0',
    '1e309',
    'NaN',
    '0x40',
    1e308,
    -0,
    0.5,
    2 ** 53,
    '100000',
    8193,
    'Stretch to',
    'Fit (grey edges) in',
    'bgr',
    'letterbox',
    { enabled: true },
    { enabled: 'true' },
  ),
);

/** A configuration with one value somewhere replaced by an odd one, or deleted; several times. */
function mutatedJson(base: Record<string, unknown>, expand = (v: Record<string, unknown>) => v): fc.Arbitrary<unknown> {
  const expanded = expand(base);
  const all = paths(expanded);
  return fc
    .array(fc.tuple(fc.constantFrom(...all), oddValue), { minLength: 1, maxLength: 4 })
    .map((edits) => edits.reduce<unknown>((v, [p, by]) => replaced(v, p, by), expanded));
}

/** The legacy PREPROCESSING is a JSON string: mutate inside it, then write it back as a string or an object. */
const legacyEnv = fc.constantFrom(...legacyEnvs).chain((env) =>
  fc
    .tuple(
      mutatedJson(env, (e) => ({
        ...e,
        PREPROCESSING: typeof e.PREPROCESSING === 'string' ? JSON.parse(e.PREPROCESSING) : e.PREPROCESSING,
      })),
      fc.boolean(),
    )
    .map(([m, asString]) => {
      const e = m as Record<string, unknown> | null;
      if (asString && typeof e === 'object' && e !== null && !Array.isArray(e) && 'PREPROCESSING' in e)
        return { ...e, PREPROCESSING: JSON.stringify(e.PREPROCESSING) };
      return e;
    }),
);

/** JSON text: as written, cut short, or with a byte that is not UTF-8. */
const asBytes = (value: fc.Arbitrary<unknown>) =>
  fc.tuple(value, fc.oneof(fc.constant('whole'), fc.constant('cut'), fc.constant('latin1')), fc.nat()).map(([v, how, at]) => {
    const text = JSON.stringify(v) ?? 'undefined';
    if (how === 'cut') return enc(text.slice(0, at % (text.length + 1)));
    const bytes = enc(text);
    if (how === 'latin1' && bytes.length > 0) bytes[at % bytes.length] = 0xff;
    return bytes;
  });

const oddClassNames = fc.oneof(
  fc.constant(classNames),
  fc
    .array(
      fc.oneof(
        fc.string({ unit: 'grapheme', maxLength: 12 }),
        fc.constantFrom('background', 'Background', ' background\r', '', '\t', '\u0000', '﻿background'),
      ),
      { maxLength: 300 },
    )
    .chain((names) => fc.constantFrom('\n', '\r\n', '\r').map((sep) => enc(names.join(sep)))),
  fc.uint8Array({ maxLength: 200 }),
);

/** The image every parsed spec is tried on: 24×16 RGB. */
const image = { data: new Uint8Array(24 * 16 * 3).map((_, i) => (i * 37) % 256), width: 24, height: 16, channels: 3 as const };

/** Parses the files; where they parse, checks them against the tiny model's shapes and preprocesses an image. */
function load(files: PackageFiles): string {
  try {
    const parsed = parseModelPackage(files);
    const { spec } = checkModelShapes(parsed.spec, { input: [1, 3, null, null], output: [1, parsed.spec.classNames.length, null, null] });
    const { width, height } = spec.preprocess.resize;
    // The parser bounds the input size, so that its tensor can be allocated; tried here up to a cheap size.
    expect(width <= MAX_INPUT_SIDE && height <= MAX_INPUT_SIDE).toBe(true);
    if (width * height <= 256 * 256) preprocess(image, spec.preprocess);
    return 'ok';
  } catch (error) {
    if (error instanceof ModelPackageError) {
      expect(MODEL_CODES).toContain(error.code);
      return error.code;
    }
    // The pipeline refuses an image a spec cannot be applied to (a crop that leaves nothing) with its own code.
    if (error instanceof EdgesegError) return error.code;
    throw error;
  }
}

describe('the package parser never throws an uncoded error', () => {
  test('mutated legacy environment.json', () => {
    fc.assert(
      fc.property(asBytes(legacyEnv), fc.boolean(), (env, withNames) => {
        load({ 'weights.onnx': weights, 'environment.json': env, ...(withNames ? { 'class_names.txt': classNames } : {}) });
      }),
      fuzzParams(600),
    );
  });

  test('mutated inference_config.json', () => {
    fc.assert(
      fc.property(asBytes(mutatedJson(currentConfig)), (config) => {
        load({ 'weights.onnx': weights, 'inference_config.json': config, 'class_names.txt': classNames });
      }),
      fuzzParams(600),
    );
  });

  test('odd class_names.txt and model_type.json', () => {
    fc.assert(
      fc.property(oddClassNames, fc.option(asBytes(fc.jsonValue({ maxDepth: 2 }))), (names, type) => {
        const result = load({
          'weights.onnx': weights,
          'environment.json': read(TINY('tiny-legacy'), 'environment.json'),
          'class_names.txt': names,
          ...(type ? { 'model_type.json': type } : {}),
        });
        if (result === 'ok')
          expect(
            parseModelPackage({
              'weights.onnx': weights,
              'environment.json': read(TINY('tiny-legacy'), 'environment.json'),
              'class_names.txt': names,
            }).spec.classNames.length,
          ).toBeGreaterThan(0);
      }),
      fuzzParams(500),
    );
  });

  test('any bytes as weights.onnx: a ModelProto shape or MODEL_LOAD_FAILED', () => {
    const damaged = fc.tuple(fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 16 })).map(([at, bytes]) => {
      const out = weights.slice();
      out.set(bytes.subarray(0, out.length - (at % out.length)), at % out.length);
      return out;
    });
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 400 }),
          damaged,
          fc.nat({ max: weights.length }).map((n) => weights.slice(0, n)),
        ),
        (bytes) => {
          try {
            readOnnxModel(bytes);
          } catch (error) {
            expect(error).toBeInstanceOf(ModelPackageError);
            expect((error as ModelPackageError).code).toBe('MODEL_LOAD_FAILED');
          }
        },
      ),
      fuzzParams(3000),
    );
  });
});

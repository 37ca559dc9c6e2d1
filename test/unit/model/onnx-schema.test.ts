// The model reader knows every field of ONNX's schema: its table is generated from onnx.proto, and hostile models
// are built here field by field from the same schema by protobufjs (an encoder of its own), with an external
// tensor at every place the schema allows one, a few levels deep.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import protobuf from 'protobufjs';
import { describe, expect, test } from 'vitest';
// @ts-expect-error: a plain ES module script, untyped
import { SCHEMA, TARGET, source } from '../../../scripts/onnx-schema/make-onnx-schema.mjs';
import { FUZZ_SEED } from '../../helpers/fuzz.js';
import { modelCheckVerdict as verdict } from '../../helpers/model-check.js';

const root = new protobuf.Root().loadSync(SCHEMA as string, { keepCase: true }).resolveAll();
const Model = root.lookupType('onnx.ModelProto');
const EXTERNAL = root.lookupEnum('onnx.TensorProto.DataLocation').values.EXTERNAL!;

test('src/model/onnx-schema.ts is what the generator makes of onnx.proto today', async () => {
  expect(readFileSync(TARGET as string, 'utf8')).toBe(await (source as () => Promise<string>)());
});

/** One step of a path: a field of a message, and whether it is repeated. */
interface Step {
  field: string;
  repeated: boolean;
}

/**
 * Every path through the schema from ModelProto to a TensorProto on which no message comes more than `visits`
 * times, read from the schema's own reflection (not from the generated table under test).
 */
function pathsToTensors(visits: number): Step[][] {
  const found: Step[][] = [];
  const go = (type: protobuf.Type, path: Step[], seen: Map<string, number>) => {
    if (type.name === 'TensorProto') return void found.push(path);
    const count = seen.get(type.name) ?? 0;
    if (count >= visits) return;
    const next = new Map(seen).set(type.name, count + 1);
    for (const field of type.fieldsArray) {
      if (field.resolvedType instanceof protobuf.Type)
        go(field.resolvedType, [...path, { field: field.name, repeated: field.repeated }], next);
    }
  };
  go(Model, [], new Map());
  return found;
}

/** A model (ir_version, a graph) with `tensor` placed at the end of `path`, each message built by the schema. */
function modelWith(path: Step[], tensor: Record<string, unknown>): Uint8Array {
  let value: unknown = tensor;
  for (const step of [...path].reverse()) {
    const holder: Record<string, unknown> = { [step.field]: step.repeated ? [value] : value };
    value = holder;
  }
  const model = { ir_version: 10, graph: { name: 'g' }, ...(value as Record<string, unknown>) };
  return Model.encode(Model.fromObject(model)).finish();
}

const outside = (name: string) => ({
  name,
  dims: [1],
  data_type: 1,
  data_location: EXTERNAL,
  external_data: [{ key: 'location', value: '.env' }],
});
const inside = (name: string) => ({ name, dims: [1], data_type: 1, float_data: [1] });

describe('every place in the schema that holds a tensor', () => {
  const paths = pathsToTensors(2);
  const label = (path: Step[]) => path.map((s) => s.field).join('.');

  test('the schema has the places the check has to know (a sanity check of the walk above)', () => {
    const labels = paths.map(label);
    expect(labels).toContain('graph.initializer');
    expect(labels).toContain('functions.attribute_proto.t'); // a function attribute's default
    expect(labels).toContain('training_info.algorithm.node.attribute.g.sparse_initializer.values');
    expect(paths.length).toBeGreaterThan(100);
  });

  test('an external tensor anywhere is MODEL_LOAD_FAILED naming it and its file', () => {
    for (const path of paths) {
      expect(verdict(modelWith(path, outside('hostile'))), label(path)).toContain('tensor "hostile" names the file ".env"');
    }
  });

  test('the same tensor with its data inside is accepted (the check refuses external data, not places)', () => {
    for (const path of paths) expect(verdict(modelWith(path, inside('fine'))), label(path)).toBe('accepted');
  });

  test('fuzz: models built field by field, with the external tensor among benign ones at any depth', () => {
    const deeper = pathsToTensors(3);
    fc.assert(
      fc.property(
        fc.constantFrom(...deeper),
        fc.array(fc.constantFrom(...deeper), { maxLength: 4 }),
        fc.constantFrom('data_location', 'external_data', 'both'),
        fc.string({ minLength: 1, maxLength: 12 }),
        (hostile, benign, how, name) => {
          const tensor: Record<string, unknown> = outside(name);
          if (how === 'data_location') delete tensor.external_data;
          if (how === 'external_data') delete tensor.data_location;
          // Merge each benign path's model after the hostile one: protobuf concatenation is a merge.
          const parts = [modelWith(hostile, tensor), ...benign.map((p) => modelWith(p, inside('fine')))];
          const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
          parts.reduce((at, p) => (bytes.set(p, at), at + p.length), 0);
          const message = verdict(bytes);
          expect(message).toContain('weights.onnx keeps tensor data outside the file');
          expect(message).toContain(`tensor ${JSON.stringify(name)}`);
        },
      ),
      { seed: FUZZ_SEED, numRuns: 500 },
    );
  });
});

// edgeseg's ONNX reader against the readers that matter: onnxruntime's (protobuf's C++ reader), run here through
// onnxruntime-node itself and through Debian's python3-protobuf (the same C++ library), on models spelled the
// ways a hostile host would spell them. Every model onnxruntime would load with a file reference is refused;
// every model edgeseg accepts is written again exactly as the C++ library writes what it read.
import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readOnnxModel } from '../../../src/model/index.js';
import { decodeModel, encodeModel, MAX_DEPTH, MAX_MESSAGES, WireError } from '../../../src/model/onnx-wire.js';
import { leakAdditions, standalone } from '../../fixtures/hostile-onnx.js';
import { ModelType, respell, tagBytes, varintBytes, type Speller, type Spelling } from '../../fixtures/protobuf-respell.js';
import { fuzzParams } from '../../helpers/fuzz.js';
import { modelCheckVerdict } from '../../helpers/model-check.js';
import { ROOT, TINY } from '../../helpers/paths.js';
import { cppRead } from '../../helpers/protobuf-cpp.js';

const CANARY = 'SECRET=do-not-read-me\n';
let work: string;
let cwd: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'edgeseg-wire-'));
  writeFileSync(join(work, '.env'), CANARY);
  cwd = process.cwd();
  // onnxruntime resolves an external file against the working folder when the model comes as bytes.
  process.chdir(work);
});
afterAll(() => {
  process.chdir(cwd);
  rmSync(work, { recursive: true, force: true });
});

/** edgeseg's reading: the bytes it would hand a runtime, or its refusal's message. */
function edgesegRead(bytes: Uint8Array): { bytes: Uint8Array } | { refused: string } {
  try {
    return { bytes: readOnnxModel(bytes).bytes() };
  } catch (error) {
    expect((error as { code?: string }).code).toBe('MODEL_LOAD_FAILED');
    return { refused: (error as Error).message };
  }
}

const CONTAINERS =
  /(^|\.)(functions|attribute_proto|graph|node|attribute|initializer|sparse_initializer|values|g|t|external_data|data_location)$/;
const SPELLINGS: Record<string, Speller> = {
  'as protobuf writes it': () => ({}),
  "external_data's and data_location's tags with bits above 32": (path) => ({
    tag: /(external_data|data_location)$/.test(path) ? 'high' : 'plain',
  }),
  'the tags of every field on the way to the tensor with bits above 32': (path) => ({ tag: CONTAINERS.test(path) ? 'high' : 'plain' }),
  'every tag with bits above 32': () => ({ tag: 'high' }),
  'every tag and length padded to 5 bytes, every varint to 10': () => ({ tag: 'padded', length: 'padded', varint: 'padded' }),
  'every singular message written in two halves': () => ({ split: true }),
};

describe('models that make onnxruntime read a file, however they are spelled', () => {
  const placements = Object.entries(leakAdditions('.env'));
  const cases = placements.flatMap(([place, addition]) =>
    Object.entries(SPELLINGS).map(([spelling, speller]) => ({ place, spelling, bytes: respell(standalone(addition), ModelType, speller) })),
  );

  test.each(cases)('$place, $spelling: onnxruntime reads .env from the bytes; edgeseg refuses them', async ({ bytes }) => {
    // The control: the real parser finds the file reference in these very bytes and returns the file's bytes.
    const session = await ort.InferenceSession.create(bytes);
    const leaked = (await session.run({})).leak!.data as Uint8Array;
    await session.release();
    expect(Buffer.from(leaked).toString()).toBe(CANARY.slice(0, 16));
    const read = edgesegRead(bytes);
    expect(read).toEqual({ refused: expect.stringContaining('tensor "secret" names the file ".env"') as string });
  });

  test('the same models with their data inside the file are accepted, and run as onnxruntime runs them as given', async () => {
    /** The addition with each external tensor's data moved inside it. */
    const inside = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(inside);
      if (!value || typeof value !== 'object' || value instanceof Uint8Array) return value;
      const { data_location: _, external_data: external, ...rest } = value as Record<string, unknown>;
      const moved = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, inside(v)]));
      return external ? { ...moved, raw_data: new TextEncoder().encode('ABCDEFGHIJKLMNOP') } : moved;
    };
    for (const [place, addition] of placements) {
      const bytes = respell(standalone(inside(addition) as Record<string, unknown>), ModelType, SPELLINGS['every tag with bits above 32']!);
      const read = edgesegRead(bytes);
      expect('bytes' in read, place).toBe(true);
      const outputs = [];
      for (const model of [bytes, (read as { bytes: Uint8Array }).bytes]) {
        const session = await ort.InferenceSession.create(model);
        outputs.push(Buffer.from((await session.run({})).leak!.data as Uint8Array).toString());
        await session.release();
      }
      expect(outputs, place).toEqual(['ABCDEFGHIJKLMNOP', 'ABCDEFGHIJKLMNOP']);
    }
  });

  test('.env was never read by the checks (its access time is as set before them)', () => {
    // An access time set before the change time: the file system moves it on the next read (relatime).
    utimesSync(join(work, '.env'), new Date(1000), new Date());
    for (const [, addition] of placements) {
      for (const speller of Object.values(SPELLINGS)) edgesegRead(respell(standalone(addition), ModelType, speller));
    }
    expect(statSync(join(work, '.env')).atimeMs).toBe(1000);
  });
});

/** Real models: the fixtures, the bundled models. */
const REAL = [
  join(TINY('tiny-legacy'), 'weights.onnx'),
  join(TINY('tiny-upsample'), 'weights.onnx'),
  join(TINY('tiny-binary'), 'weights.onnx'),
  join(ROOT, 'models', 'people', 'general', 'weights.onnx'),
].map((path) => new Uint8Array(readFileSync(path)));

describe('the same reading as protobuf C++ (onnxruntime’s reader)', () => {
  test('real models are written again byte for byte as they came, as the C++ library writes them', async () => {
    const cpp = await cppRead(REAL);
    REAL.forEach((bytes, i) => {
      const ours = encodeModel(decodeModel(bytes).model);
      expect(Buffer.from(ours).equals(Buffer.from(bytes))).toBe(true);
      expect(Buffer.from(ours).equals(Buffer.from(cpp[i]!))).toBe(true);
    });
  });

  // Where edgeseg is stricter than the C++ reader, by design (src/model/onnx-wire.ts): refused, never misread.
  const STRICTER = /is a group|is not UTF-8 text|numbered 0/;

  /** Whether onnxruntime's own parse of the bytes fails (not the load after it: the graph may be nonsense). */
  async function onnxruntimeRefuses(bytes: Uint8Array): Promise<boolean> {
    try {
      await (await ort.InferenceSession.create(bytes)).release();
      return false;
    } catch (error) {
      return (error as Error).message.includes('protobuf parsing failed');
    }
  }

  /**
   * Compares edgeseg's reading of each model with the C++ reader's: the same canonical bytes, or both refuse.
   * Where only edgeseg refuses, it must be by design (STRICTER), or onnxruntime must refuse too: Python's
   * wrapper of the C++ reader stops at a group end at the top level with a warning, where the C++
   * ParseFromArray that onnxruntime calls fails.
   */
  async function compare(models: Uint8Array[]) {
    const cpp = await cppRead(models);
    const tally = { same: 0, bothRefused: 0, stricter: 0 };
    for (const [i, bytes] of models.entries()) {
      let ours: Uint8Array | Error;
      try {
        ours = encodeModel(decodeModel(bytes).model);
      } catch (error) {
        if (!(error instanceof WireError)) throw error;
        ours = error;
      }
      const theirs = cpp[i];
      const where = `case ${i}: ${Buffer.from(bytes.subarray(0, 48)).toString('hex')}`;
      if (ours instanceof Error) {
        if (theirs === null || (await onnxruntimeRefuses(bytes))) tally.bothRefused++;
        else {
          expect(ours.message, where).toMatch(STRICTER);
          tally.stricter++;
        }
      } else {
        expect(theirs, `${where}: C++ refused what edgeseg read`).not.toBeNull();
        expect(Buffer.from(ours).toString('hex'), where).toBe(Buffer.from(theirs!).toString('hex'));
        tally.same++;
      }
    }
    return tally;
  }

  test('hand-picked spellings: each read as C++ reads it, or refused by both', async () => {
    const tiny = REAL[0]!;
    const bytes = (...parts: (number | Uint8Array)[]) => new Uint8Array(parts.flatMap((p) => (typeof p === 'number' ? [p] : [...p])));
    /** A length-delimited field. */
    const f = (number: number, ...payload: (number | Uint8Array)[]) => {
      const inner = bytes(...payload);
      return bytes(...tagBytes(number * 8 + 2, 'plain'), ...varintBytes(BigInt(inner.length)), inner);
    };
    /** ir_version 8 and a graph with one initializer (a TensorProto named "w") holding `tensor`. */
    const withTensor = (...tensor: (number | Uint8Array)[]) => bytes(0x08, 0x08, f(7, f(5, f(8, 0x77), ...tensor)));
    const cases: [string, Uint8Array][] = [
      ['a tag of 5 bytes with bits above 32', respell(tiny, ModelType, () => ({ tag: 'high' }))],
      ['a tag of 6 bytes', respell(tiny, ModelType, (p) => ({ tag: p === 'graph.node' ? 'overlong' : 'plain' }))],
      ['a length of 6 bytes', respell(tiny, ModelType, (p) => ({ length: p === 'graph' ? 'overlong' : 'plain' }))],
      ['a varint of 11 bytes', respell(tiny, ModelType, (p) => ({ varint: p === 'ir_version' ? 'overlong' : 'plain' }))],
      ['every singular message given in two halves (merged)', respell(tiny, ModelType, () => ({ split: true }))],
      ['a graph field as a varint (an unknown field)', bytes(tiny, 0x38, 0x05)],
      ['field 2^29 − 1, length-delimited', bytes(tiny, ...tagBytes(((2 ** 29 - 1) * 8 + 2) >>> 0, 'plain'), 0x01, 0x00)],
      ['wire type 6', bytes(tiny, 0x0e)],
      ['wire type 7', bytes(tiny, 0x0f)],
      ['an end of group with no group', bytes(tiny, 0x0c)],
      ['a length past the end', bytes(tiny, 0x12, 0x7f, 0x41)],
      ['data_location 2^32 + 1 (EXTERNAL to a 32-bit reader)', withTensor(0x70, 0x81, 0x80, 0x80, 0x80, 0x10)],
      ['data_location 5 (not in the enum)', withTensor(0x70, 0x05)],
      ['data_location as a length-delimited field', withTensor(0x72, 0x01, 0x01)],
      ['dims packed where the schema says unpacked', withTensor(0x0a, 0x02, 0x03, 0x04)],
      ['float_data unpacked where the schema says packed', withTensor(0x25, 0, 0, 0x80, 0x3f, 0x25, 0, 0, 0, 0x40)],
      [
        'a oneof set twice (dim_value, then dim_param)',
        bytes(0x08, 0x08, f(7, f(11, f(1, 0x78), f(2, f(1, f(2, f(1, 0x08, 0x07, f(2, 0x61)))))))),
      ],
      ['a string that is not UTF-8', bytes(0x08, 0x08, f(7, f(2, 0xff, 0xfe)))],
    ];
    const tally = await compare(cases.map(([, b]) => b));
    // At least these kinds are exercised: read alike, refused by both.
    expect(tally.same).toBeGreaterThanOrEqual(8);
    expect(tally.bothRefused).toBeGreaterThanOrEqual(6);
  });

  test('fuzz: real models respelled, with unknown fields, duplicates and junk inserted anywhere', async () => {
    const tag = fc.record({
      number: fc.oneof(fc.integer({ min: 1, max: 26 }), fc.integer({ min: 1, max: 2 ** 29 - 1 })),
      wire: fc.integer({ min: 0, max: 7 }),
      spelling: fc.constantFrom<Spelling['tag']>('plain', 'padded', 'high', 'overlong'),
    });
    const junk = fc.tuple(tag, fc.uint8Array({ maxLength: 12 }), fc.nat({ max: 2 ** 31 })).map(([t, payload, value]) => {
      const head = tagBytes(((t.number * 8) | t.wire) >>> 0, t.spelling);
      if (t.wire === 0) return new Uint8Array([...head, ...varintBytes(BigInt(value), value % 3 === 0 ? 10 : 1)]);
      if (t.wire === 2) return new Uint8Array([...head, ...varintBytes(BigInt(payload.length + (value % 5 === 0 ? 1 : 0))), ...payload]);
      return new Uint8Array([...head, ...payload]);
    });
    const choice = fc.record({
      tag: fc.constantFrom<Spelling['tag']>('plain', 'plain', 'padded', 'high', 'overlong'),
      length: fc.constantFrom<Spelling['length']>('plain', 'plain', 'padded', 'overlong'),
      varint: fc.constantFrom<Spelling['varint']>('plain', 'plain', 'padded', 'overlong'),
      split: fc.boolean(),
      after: fc.option(junk, { freq: 3 }),
    });
    const model = fc
      .tuple(
        fc.constantFrom(...REAL.slice(0, 3)),
        fc.array(choice, { minLength: 1, maxLength: 24 }),
        fc.nat(),
        fc.integer({ min: 2, max: 400 }),
      )
      .map(([base, picks, salt, rarity]) => {
        // Each field is spelled by the pick its path and position hash to, so that a case replays exactly.
        let count = 0;
        return respell(base, ModelType, (path) => {
          const hash = [...path].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, salt + count++);
          const pick = picks[hash % picks.length]!;
          // One field in `rarity` respelled: many models stay readable, and the comparison reaches deep fields.
          if (hash % rarity !== 0) return {};
          return { ...pick, after: pick.after ?? undefined };
        });
      });
    const { seed, numRuns } = fuzzParams(400);
    const models = fc.sample(model, { seed, numRuns });
    const tally = await compare(models);
    console.log(`${models.length} respelled models: ${JSON.stringify(tally)}`);
    expect(tally.same + tally.bothRefused + tally.stricter).toBe(models.length);
    expect(tally.same).toBeGreaterThan(models.length / 10);
    expect(tally.bothRefused).toBeGreaterThan(models.length / 10);
  });
});

describe('bounded', () => {
  test(`a field bomb (empty nodes) is refused past ${MAX_MESSAGES.toLocaleString('en')} messages`, () => {
    const count = 6_000_000;
    const graph = new Uint8Array(count * 2);
    for (let i = 0; i < count; i++) graph.set([0x0a, 0x00], i * 2); // GraphProto.node, empty
    const model = new Uint8Array([0x08, 0x08, 0x3a, ...varintBytes(BigInt(graph.length)), ...graph]);
    const before = process.memoryUsage().heapUsed;
    expect(modelCheckVerdict(model)).toContain(`it holds more than ${MAX_MESSAGES.toLocaleString('en')} messages`);
    // The refusal comes from the count, not after the whole file was turned into objects.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(400 * 2 ** 20);
  });

  test(`messages nested deeper than ${MAX_DEPTH} levels are refused, not walked into a stack overflow`, () => {
    let graph = new Uint8Array();
    const field = (n: number, payload: Uint8Array) => new Uint8Array([n * 8 + 2, ...varintBytes(BigInt(payload.length)), ...payload]);
    for (let i = 0; i < 1000; i++) graph = field(1, field(5, field(6, graph))); // node → attribute → g
    expect(modelCheckVerdict(new Uint8Array([0x08, 0x08, ...field(7, graph)]))).toContain(`nest deeper than ${MAX_DEPTH} levels`);
  });

  test('unknown fields cost a pass over their bytes, and are not kept', () => {
    const junk = new Uint8Array(4_000_000);
    for (let i = 0; i < junk.length; i += 2) junk.set([0xf8, 0x01], i); // field 31, varint 1
    const tiny = REAL[0]!;
    const read = readOnnxModel(new Uint8Array([...tiny, ...junk]));
    expect(Buffer.from(read.bytes()).equals(Buffer.from(tiny))).toBe(true);
  });
});

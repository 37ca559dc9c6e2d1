// Model packages on hosts as they are, in Chromium: a single-page-app fallback that answers index.html for
// every file it lacks, wrong content types, and a host that answers every path with its page.
import { describe, expect, test } from 'vitest';
import { commands } from 'vitest/browser';
import { createSegmenter, ModelPackageError } from '../../src/index.js';
import { expectSamePayload } from './same-payload.js';

const SAMPLE = 'test/fixtures/images/sample.png';
const sample = async () => new Uint8Array(await (await fetch(`/${SAMPLE}`)).arrayBuffer());

describe('a package on a host with a single-page-app fallback loads', () => {
  const cases: [string, 'spa-fallback' | 'wrong-types', string[]][] = [
    ['tiny-legacy', 'spa-fallback', ['model_type.json']],
    ['tiny-current', 'spa-fallback', []],
    ['tiny-legacy', 'wrong-types', []],
  ];
  test.each(cases)('%s on a %s host (hidden: %j): the Node payload', async (name, habit, hide) => {
    const host = await commands.startHostileHost(habit, hide);
    const seg = await createSegmenter({ model: `${host}/${name}/`, backends: ['wasm'], cache: false });
    try {
      const node = await commands.nodeSegment(`test/fixtures/models/${name}`, SAMPLE, 50);
      expectSamePayload(SAMPLE, await seg.segment(await sample()), node, `${name} from a ${habit} host`);
    } finally {
      await seg.dispose();
    }
  });
});

test('a model URL whose every file is an HTML page: MODEL_FILE_MISSING naming the URL, no key, no hang', async () => {
  const host = await commands.startHostileHost('all-html');
  const error = await createSegmenter({ model: `${host}/tiny-legacy/?api_key=sekret-key-123`, backends: ['wasm'], cache: false }).catch(
    (e: unknown) => e,
  );
  // No backend could load it: the reason of each is the package's.
  expect(error).toMatchObject({ code: 'NO_BACKEND' });
  expect((error as Error).cause).toBeInstanceOf(ModelPackageError);
  expect((error as Error).cause).toMatchObject({ code: 'MODEL_FILE_MISSING' });
  const message = (error as Error).message;
  expect(message).toContain(`${host}/tiny-legacy/`);
  expect(message).toContain('the host answered an HTML page, not the file (often a single-page-app fallback');
  expect(message).not.toContain('sekret-key-123');
  // The page keeps working: a good package loads next.
  const seg = await createSegmenter({ model: '/test/fixtures/models/tiny-legacy/', backends: ['wasm'], cache: false });
  expect((await seg.segment(await sample())).image).toEqual({ width: 24, height: 16 });
  await seg.dispose();
});

// hidden-external-data: the same file reference behind tags written in 5 bytes with bits above 32 set, which
// onnxruntime's reader keeps to their low 32 bits.
test.each(['external-data', 'hidden-external-data'])(
  'a package whose weights.onnx keeps its tensors in another file (%s): MODEL_LOAD_FAILED, before any runtime fetches that file',
  async (name) => {
    const error = await createSegmenter({ model: `/test/fixtures/models/${name}/`, backends: ['wasm'], cache: false }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'NO_BACKEND' });
    expect((error as Error).cause).toBeInstanceOf(ModelPackageError);
    expect((error as Error).cause).toMatchObject({ code: 'MODEL_LOAD_FAILED' });
    expect((error as Error).message).toContain('"classify.weight" names the file "package.json"');
  },
);

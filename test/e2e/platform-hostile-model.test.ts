// A version whose model package is hostile or malformed, on the local platform's /infer route: the coded
// error the command line gives for the same package (its ModelPackageError code, as a 422), no stack trace
// in the answer or the log, and the server still serving once the package is fixed.
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startPlatformServer, type PlatformServer } from '../../server/index.js';
import { main } from '../../src/cli/cli.js';
import { withFunctionAttributeDefault } from '../fixtures/hostile-onnx.js';
import { ModelType, respell } from '../fixtures/protobuf-respell.js';
import { parseJson, type ErrorAnswer } from '../helpers/json.js';
import { ROOT, TINY } from '../helpers/paths.js';
import { rawHttp } from '../helpers/raw-http.js';

const SAMPLE_PNG = join(ROOT, 'test', 'fixtures', 'images', 'sample.png');

let dir: string;
let pkg: string;
let server: PlatformServer;
const logged: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'edgeseg-hostile-model-'));
  // The package the server's version 2 runs: a copy of a tiny model whose weights each test replaces.
  pkg = join(dir, 'pkg');
  await mkdir(pkg);
  for (const name of ['class_names.txt', 'environment.json', 'model_type.json', 'weights.onnx'])
    await copyFile(join(TINY('tiny-legacy'), name), join(pkg, name));
  server = await startPlatformServer({ port: 0, dataDir: join(dir, 'data'), modelDir: pkg, log: (line) => logged.push(line) });
});

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const infer = async () =>
  rawHttp(server.baseUrl, {
    method: 'POST',
    path: `/infer/shapes/2?api_key=${server.apiKey}`,
    body: (await readFile(SAMPLE_PNG)).toString('base64'),
  });

test("a hostile or malformed weights.onnx on /infer: 422 with the command line's code, no stack in the answer or the log; the fixed package is served", async () => {
  const good = await readFile(join(TINY('tiny-legacy'), 'weights.onnx'));
  const packages = {
    // A tensor kept in the working folder's .env (refused by the model check before any runtime sees it).
    'external tensor': withFunctionAttributeDefault(good, '.env'),
    // The same, its external_data and data_location behind tags of 5 bytes with bits above 32 set, which
    // onnxruntime keeps to their low 32 bits.
    'external tensor behind 5-byte tags': respell(withFunctionAttributeDefault(good, '.env'), ModelType, (path) => ({
      tag: /(external_data|data_location)$/.test(path) ? 'high' : 'plain',
    })),
    // Not an ONNX model at all (onnxruntime refuses it).
    'not ONNX': new TextEncoder().encode('this is not a model'.repeat(20)),
  };
  for (const [what, weights] of Object.entries(packages)) {
    await writeFile(join(pkg, 'weights.onnx'), weights);
    // The command line, as edgeseg segment runs it, on the same package.
    let stderr = '';
    const exit = await main(['segment', SAMPLE_PNG, '--model', pkg, '--quiet'], { out: () => {}, err: (s) => (stderr += s) });
    const cliCode = /\[([A-Z_]+)\]\n$/.exec(stderr)?.[1];
    logged.length = 0;
    for (let i = 0; i < 2; i++) {
      const answer = await infer();
      const error = parseJson<ErrorAnswer>(answer.body).error;
      expect([what, answer.status, error.code, exit]).toEqual([what, 422, cliCode, 4]);
      expect(error.code).toBe('MODEL_LOAD_FAILED');
      expect(answer.body).not.toMatch(/\n\s+at /);
    }
    expect(logged.join('\n')).not.toMatch(/\n\s+at |^error:/m);
    expect(logged.filter((line) => line.startsWith('POST /infer/'))).toHaveLength(2);
  }
  await writeFile(join(pkg, 'weights.onnx'), good);
  expect((await infer()).status).toBe(200);
});

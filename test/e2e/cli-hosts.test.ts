// The command line with a model URL on hosts as they are: a single-page-app fallback loads; a host that
// answers every path with its page is exit 4 (model package problem), saying so, the key masked.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startHostileHost, type HostileHost } from '../fixtures/hostile-host.js';
import { leakAdditions } from '../fixtures/hostile-onnx.js';
import { encodeModel, ModelType, respell } from '../fixtures/protobuf-respell.js';
import { ensureBuilt, runCli } from '../helpers/built-cli.js';
import { parseJson } from '../helpers/json.js';
import { ROOT } from '../helpers/paths.js';

let cache: string;
const hosts: HostileHost[] = [];
beforeAll(() => {
  ensureBuilt();
  cache = mkdtempSync(join(tmpdir(), 'edgeseg-cli-hosts-'));
});
afterAll(async () => {
  for (const host of hosts) await host.close();
  rmSync(cache, { recursive: true, force: true });
});
const host = async (habit: 'spa-fallback' | 'all-html' | 'wrong-types') => {
  const h = await startHostileHost(join(ROOT, 'test', 'fixtures', 'models'), habit);
  hosts.push(h);
  return h.url;
};

test('edgeseg info on a single-page-app host: the package, with its absent files absent', async () => {
  const r = await runCli(['info', '--model', `${await host('spa-fallback')}/tiny-current/`, '--json'], {
    env: { EDGESEG_CACHE_DIR: join(cache, 'a') },
  });
  expect(r.code).toBe(0);
  const info = parseJson<{ task: string | null; modelType: string | null; classes: string[] }>(r.stdout);
  expect([info.task, info.modelType]).toEqual([null, null]);
  expect(info.classes).toContain('background');
});

test('edgeseg segment with a model URL whose every file is an HTML page: exit 4, MODEL_FILE_MISSING, key masked', async () => {
  const url = `${await host('all-html')}/tiny-legacy/?api_key=sekret-key-123`;
  const r = await runCli(['segment', join(ROOT, 'test', 'fixtures', 'images', 'sample.png'), '--model', url], {
    env: { EDGESEG_CACHE_DIR: join(cache, 'b') },
  });
  expect(r.code).toBe(4);
  expect(r.stderr).toContain('MODEL_FILE_MISSING');
  expect(r.stderr).toContain('the host answered an HTML page');
  expect(r.stderr).not.toContain('sekret-key-123');
});

test.each(['external-data', 'hidden-external-data'])(
  'edgeseg segment with a model whose weights point into package.json (%s): exit 4, MODEL_LOAD_FAILED, refused before onnxruntime reads the file it names',
  async (name) => {
    const url = `${await host('wrong-types')}/${name}/`;
    const r = await runCli(['segment', join(ROOT, 'test', 'fixtures', 'images', 'sample.png'), '--model', url], {
      env: { EDGESEG_CACHE_DIR: join(cache, `c-${name}`) },
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('MODEL_LOAD_FAILED');
    expect(r.stderr).toContain('"classify.weight" names the file "package.json"');
  },
);

// Each place onnxruntime reads a tensor from, with the tags of external_data and data_location written in 5 bytes
// with bits above 32 set (onnxruntime keeps a tag's low 32 bits), merged into a real model.
const leaks = Object.entries(leakAdditions('.env')).map(([place, addition]) => ({ place, addition }));
test.each(leaks)(
  "edgeseg segment with a model whose $place tensor names .env behind 5-byte tags: MODEL_LOAD_FAILED, and the working folder's .env is never read",
  async ({ place, addition }) => {
    const served = mkdtempSync(join(tmpdir(), 'edgeseg-hostile-model-'));
    const work = mkdtempSync(join(tmpdir(), 'edgeseg-work-'));
    try {
      const tiny = join(ROOT, 'test', 'fixtures', 'models', 'tiny-legacy');
      mkdirSync(join(served, 'pkg'));
      for (const file of ['environment.json', 'class_names.txt']) copyFileSync(join(tiny, file), join(served, 'pkg', file));
      // Protobuf concatenation merges: the model as it was, with the addition's fields added.
      const merged = Buffer.concat([readFileSync(join(tiny, 'weights.onnx')), encodeModel(addition)]);
      const hidden = respell(merged, ModelType, (path) => ({ tag: /(external_data|data_location)$/.test(path) ? 'high' : 'plain' }));
      writeFileSync(join(served, 'pkg', 'weights.onnx'), hidden);
      // A read of .env shows in its access time (the file system updates it when it is older than the change time);
      // a control file read here proves that this file system does.
      const readTime = (name: string) => statSync(join(work, name)).atimeMs;
      for (const name of ['.env', 'control']) {
        writeFileSync(join(work, name), 'SECRET=do-not-read-me\n');
        utimesSync(join(work, name), new Date(1000), new Date());
      }
      readFileSync(join(work, 'control'));
      expect(readTime('control')).toBeGreaterThan(1000);
      const hostile = await startHostileHost(served, 'spa-fallback');
      hosts.push(hostile);
      const r = await runCli(['segment', join(ROOT, 'test', 'fixtures', 'images', 'sample.png'), '--model', `${hostile.url}/pkg/`], {
        cwd: work,
        env: { EDGESEG_CACHE_DIR: join(cache, `d-${place}`) },
      });
      expect(readTime('.env')).toBe(1000);
      expect(r.stdout.toString() + r.stderr).not.toContain('do-not-read-me');
      expect(r.code).toBe(4);
      expect(r.stderr).toContain('MODEL_LOAD_FAILED');
      expect(r.stderr).toContain('tensor "secret" names the file ".env"');
    } finally {
      rmSync(served, { recursive: true, force: true });
      rmSync(work, { recursive: true, force: true });
    }
  },
);

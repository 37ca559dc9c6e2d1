import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { PlatformClient } from '../../src/platform/index.js';
import { ensureBuilt } from '../helpers/built-cli.js';
import { ROOT } from '../helpers/paths.js';

let dir: string;
beforeAll(async () => {
  ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'edgeseg-serve-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** `edgeseg serve` on the test's data directory, once it has printed its banner. */
async function serve(...args: string[]) {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'edgeseg.js'), 'serve', '--port', '0', '--data', join(dir, 'data'), '--quiet', ...args], { cwd: ROOT });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('Ctrl-C')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  const stop = async () => {
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    return exited;
  };
  return { out, base: /base_url +(\S+)/.exec(out)![1]!, stop };
}

test('edgeseg serve prints both URLs and the key, serves the routes, and stops on SIGTERM', async () => {
  const { out, stop } = await serve('--api-key', 'serve-test-key-01');
  const base = /base_url +(\S+)/.exec(out)![1]!;
  const inference = /inference_url +(\S+)/.exec(out)![1]!;
  expect(inference).toBe(`${base}/infer`);
  expect(out).toMatch(/api key +serve-test-key-01/);
  const client = new PlatformClient({ apiKey: 'serve-test-key-01', baseUrl: base, inferenceUrl: inference });
  expect((await client.root()).workspace).toBe('edgeseg-demo');
  expect((await client.search('edgeseg-demo', 'shapes', { limit: 3 })).total).toBe(72);
  expect(await stop()).toBe(0);
});

test('a restart on the same data directory with another --api-key uses that key, and keeps it', async () => {
  const root = (base: string, key: string) => fetch(`${base}/?api_key=${key}`).then((r) => r.status);
  const second = await serve('--api-key', 'serve-test-key-02');
  expect(second.out).toMatch(/api key +serve-test-key-02 /);
  expect(await root(second.base, 'serve-test-key-02')).toBe(200);
  expect(await root(second.base, 'serve-test-key-01')).toBe(401);
  expect(await second.stop()).toBe(0);
  const third = await serve();
  expect(third.out).toMatch(/api key +serve-test-key-02 /);
  expect(await root(third.base, 'serve-test-key-02')).toBe(200);
  expect(await third.stop()).toBe(0);
});

test('a crash in the middle of writing the state leaves a readable state file', async () => {
  const data = join(dir, 'crash');
  // A child that keeps rewriting the state as fast as it can, killed without warning.
  const script = `
    const { Store } = await import(${JSON.stringify(join(ROOT, 'dist', 'server', 'store.js'))});
    const big = Array.from({ length: 2000 }, (_, i) => ({ id: 'x' + i, pad: 'y'.repeat(200) }));
    const store = await Store.open(${JSON.stringify(data)}, async () => ({ format: 1, workspaces: [], exports: {}, big, n: 0 }));
    process.stdout.write('ready\\n');
    for (let n = 1; ; n++) await store.update((s) => { s.n = n; });
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script]);
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  await new Promise((r) => setTimeout(r, 400));
  child.kill('SIGKILL');
  await new Promise((r) => child.on('exit', r));
  const state = JSON.parse(await readFile(join(data, 'platform.json'), 'utf8'));
  expect(state.n).toBeGreaterThan(0);
  expect(state.big).toHaveLength(2000);
  // Whatever the child was writing is in a temporary file, never in platform.json.
  expect((await readdir(data)).filter((f) => f !== 'platform.json').every((f) => f.endsWith('.tmp'))).toBe(true);
});

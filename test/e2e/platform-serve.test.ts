import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { PlatformClient } from '../../src/platform/index.js';
import type { PlatformState } from '../../server/index.js';
import { ensureBuilt } from '../helpers/built-cli.js';
import { readJsonFile } from '../helpers/json.js';
import { startOpenAiStandIn } from '../fixtures/openai-stand-in.js';
import { ROOT } from '../helpers/paths.js';

let dir: string;
beforeAll(async () => {
  ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'edgeseg-serve-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** `edgeseg serve` on a data directory (default: the test's), once it has printed its banner. */
async function serve(args: string[] = [], data = join(dir, 'data')) {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'edgeseg.js'), 'serve', '--port', '0', '--data', data, '--quiet', ...args], {
    cwd: ROOT,
  });
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
  return { out, base: /base_url +(\S+)/.exec(out)![1]!, key: /api key +(\S+)/.exec(out)![1]!, child, stop };
}

test('edgeseg serve prints both URLs and the key, serves the routes, and stops on SIGTERM', async () => {
  const { out, stop } = await serve(['--api-key', 'serve-test-key-01']);
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
  const second = await serve(['--api-key', 'serve-test-key-02']);
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
    for (let n = 1; ; n++) {
      await store.update((s) => { s.n = n; });
      if (n === 20) process.stdout.write('wrote 20\\n');
    }
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script]);
  // Killed once 20 writes are done (counted, not timed), while it goes on writing.
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  child.kill('SIGKILL');
  await new Promise((r) => child.on('exit', r));
  const state = await readJsonFile<{ n: number; big: unknown[] }>(join(data, 'platform.json'));
  expect(state.n).toBeGreaterThanOrEqual(20);
  expect(state.big).toHaveLength(2000);
  // Whatever the child was writing is in a temporary file, never in platform.json.
  expect((await readdir(data)).filter((f) => f !== 'platform.json').every((f) => f.endsWith('.tmp'))).toBe(true);
});

test('a new data directory gets a random key, printed at start and kept', async () => {
  const data = join(dir, 'fresh');
  const first = await serve([], data);
  expect(first.key).toMatch(/^[A-Za-z0-9_-]{32}$/);
  expect(first.out).toContain('CORS           loopback origins');
  expect(await first.stop()).toBe(0);
  const second = await serve(['--allow-origin', 'https://app.example'], data);
  expect(second.key).toBe(first.key);
  expect(second.out).toContain('CORS           loopback origins, https://app.example');
  const pre = await fetch(`${second.base}/edgeseg-demo`, {
    method: 'OPTIONS',
    headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
  });
  expect(pre.headers.get('access-control-allow-origin')).toBe('https://app.example');
  expect(await second.stop()).toBe(0);
});

test('a SIGKILL in the middle of writes loses nothing that was answered: settings, generated images, exports', async () => {
  const provider = await startOpenAiStandIn();
  const data = join(dir, 'killed');
  const first = await serve([], data);
  const at = (base: string, path: string) => `${base}${path}${path.includes('?') ? '&' : '?'}api_key=${first.key}`;
  const json = async (url: string, init?: RequestInit) => {
    const r = await fetch(url, init);
    if (!r.ok) throw new Error(`${url.replace(first.key, '***')}: ${r.status} ${await r.text()}`);
    return (await r.json()) as unknown;
  };
  await json(at(first.base, '/edgeseg-demo/settings'), {
    method: 'PUT',
    body: JSON.stringify({ providerApiKey: provider.key, providerBaseUrl: provider.url }),
  });

  // Three writers at once, each recording what the server acknowledged; the kill comes while they write.
  let killed = false;
  let settingsAcked = 0;
  const images: { id: string }[] = [];
  const exports: string[] = [];
  const keepWriting = async (write: () => Promise<boolean>) => {
    try {
      while (!killed && (await write()));
    } catch (error) {
      if (!killed) throw error;
    }
  };
  let n = 0;
  const writers = [
    keepWriting(async () => {
      const i = ++n;
      await json(at(first.base, '/edgeseg-demo/settings'), { method: 'PUT', body: JSON.stringify({ captionModel: `model-${i}` }) });
      settingsAcked = Math.max(settingsAcked, i);
      return true;
    }),
    keepWriting(async () => {
      const answer = (await json(at(first.base, '/synthetic-image'), {
        method: 'POST',
        body: JSON.stringify({ prompt: 'a red disc', size: '64x64', unmodified_prompt: true, project_url: 'shapes' }),
      })) as { images: { id: string }[] };
      images.push(...answer.images);
      return true;
    }),
    keepWriting(async () => {
      const format = ['png-mask-semantic', 'coco-segmentation'][exports.length]!;
      exports.push(((await json(at(first.base, `/edgeseg-demo/shapes/2/${format}`))) as { export: { link: string } }).export.link);
      return exports.length < 2;
    }),
  ];
  await new Promise<void>((resolve, reject) => {
    const check = setInterval(() => {
      if (settingsAcked >= 10 && images.length >= 2 && exports.length === 2) {
        clearInterval(check);
        resolve();
      }
    }, 5);
    Promise.all(writers).then(() => reject(new Error('the writers stopped before the kill')), reject);
  });
  const exited = new Promise((resolve) => first.child.on('exit', resolve));
  killed = true;
  first.child.kill('SIGKILL');
  await exited;
  await Promise.all(writers);
  await provider.close();

  const second = await serve([], data);
  try {
    expect(second.key).toBe(first.key);
    const state = await readJsonFile<PlatformState>(join(data, 'platform.json'));
    // The last acknowledged settings, or a later one that was being written at the kill.
    const { captionModel } = state.workspaces[0]!.settings;
    expect(captionModel).toMatch(/^model-\d+$/);
    expect(Number(captionModel!.slice('model-'.length))).toBeGreaterThanOrEqual(settingsAcked);
    for (const { id } of images) {
      const { image } = (await json(at(second.base, `/edgeseg-demo/shapes/images/${id}`))) as {
        image: { width: number; urls: { original: string } };
      };
      expect(image.width).toBe(64);
      const bytes = Buffer.from(await (await fetch(image.urls.original)).arrayBuffer());
      expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    }
    for (const link of exports) {
      // Links handed out before the kill still work after it (the signing secret is in the directory too).
      const zip = await fetch(link.replace(/^http:\/\/[^/]+/, second.base));
      expect(zip.status).toBe(200);
      expect(
        Buffer.from(await zip.arrayBuffer())
          .subarray(0, 2)
          .toString(),
      ).toBe('PK');
    }
    // What the killed server was writing was left in temporary files, which the restart removed.
    expect((await readdir(data, { recursive: true })).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  } finally {
    await second.stop();
  }
});

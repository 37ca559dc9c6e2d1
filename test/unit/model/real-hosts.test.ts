// Model packages on hosts as they are: a single-page-app fallback, 403 or empty answers for missing files,
// wrong content types, and a host that answers every path with its index.html. Node's `{ url }` models,
// over loopback HTTP, compared with the same package read from its folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { fetchPackageFiles } from '../../../src/model/index.js';
import { createSegmenter, ModelPackageError, type NodeSegmenter } from '../../../src/node/index.js';
import type { SegmentationPayload } from '../../../src/payload/index.js';
import { INDEX_HTML, startHostileHost, type HostHabit, type HostileHost } from '../../fixtures/hostile-host.js';
import { samples } from '../../helpers/image-samples.js';
import { ROOT, TINY } from '../../helpers/paths.js';
import { memoryCache } from '../../helpers/memory-cache.js';
import { rejection } from '../../helpers/rejection.js';

const MODELS = join(ROOT, 'test', 'fixtures', 'models');
const image = samples().png;
const cacheDirs: string[] = [];
const freshCache = () => {
  const dir = mkdtempSync(join(tmpdir(), 'edgeseg-hosts-'));
  cacheDirs.push(dir);
  return dir;
};
const expected: Record<string, SegmentationPayload> = {};
beforeAll(async () => {
  for (const name of ['tiny-legacy', 'tiny-current']) {
    const seg = await createSegmenter({ model: TINY(name), numThreads: 1 });
    expected[name] = await seg.segment(image);
    await seg.dispose();
  }
});
afterAll(() => {
  for (const dir of cacheDirs) rmSync(dir, { recursive: true, force: true });
});

async function withHost<T>(habit: HostHabit, run: (host: HostileHost) => Promise<T>, hide: string[] = []): Promise<T> {
  const host = await startHostileHost(MODELS, habit, hide);
  try {
    return await run(host);
  } finally {
    await host.close();
  }
}

async function payloadFrom(url: string): Promise<SegmentationPayload> {
  let seg: NodeSegmenter | undefined;
  try {
    seg = await createSegmenter({ model: { url }, numThreads: 1, cacheDir: freshCache() });
    return await seg.segment(image);
  } finally {
    await seg?.dispose();
  }
}

describe('optional files that a host answers oddly count as absent', () => {
  const cases: [HostHabit, string, string[]][] = [
    ['spa-fallback', 'tiny-legacy', []],
    ['spa-fallback', 'tiny-legacy', ['model_type.json']],
    ['spa-fallback', 'tiny-current', []],
    ['forbidden', 'tiny-legacy', ['model_type.json']],
    ['forbidden', 'tiny-current', []],
    ['empty', 'tiny-legacy', ['model_type.json']],
    ['empty', 'tiny-current', []],
  ];
  test.each(cases)("%s host, %s (hidden: %j): loads and gives the folder's payload", async (habit, name, hide) => {
    await withHost(
      habit,
      async (host) => {
        expect(await payloadFrom(`${host.url}/${name}/`)).toEqual(expected[name]);
        // The legacy configuration, and the legacy model_type.json, are asked for only where the current one is absent.
        expect(host.requests.includes(`/${name}/environment.json`)).toBe(name === 'tiny-legacy');
        expect(host.requests.includes(`/${name}/model_type.json`)).toBe(name === 'tiny-legacy');
      },
      hide,
    );
  });

  test('what an absent optional file answered does not reach the package', async () => {
    await withHost('spa-fallback', async (host) => {
      const files = await fetchPackageFiles(`${host.url}/tiny-current/`);
      expect(Object.keys(files).sort()).toEqual(['class_names.txt', 'inference_config.json', 'weights.onnx']);
    });
  });
});

test('an HTML page kept in the cache for a file (by an older version) is asked for again, not used', async () => {
  await withHost('spa-fallback', async (host) => {
    const base = `${host.url}/tiny-legacy/`;
    const cache = memoryCache([[`${base}model_type.json`, new TextEncoder().encode(INDEX_HTML)]]);
    const files = await fetchPackageFiles(base, { cache });
    expect(new TextDecoder().decode(files['model_type.json'])).toContain('semantic');
    expect(host.requests).toContain('/tiny-legacy/model_type.json');
    expect(cache.store.get(`${base}model_type.json`)).toEqual(files['model_type.json']);
  });
});

describe('content types are not looked at: the bytes decide', () => {
  test('every file served as text/html still loads, with the same payload', async () => {
    await withHost('wrong-types', async (host) => {
      expect(await payloadFrom(`${host.url}/tiny-legacy/`)).toEqual(expected['tiny-legacy']);
    });
  });
});

describe('required files that answer an HTML page', () => {
  test('a model URL whose every file is an HTML page: MODEL_FILE_MISSING, naming the URL and the fallback, key masked', async () => {
    await withHost('all-html', async (host) => {
      const error = await rejection(
        createSegmenter({ model: { url: `${host.url}/tiny-legacy/?api_key=sekret-key-123` }, cacheDir: freshCache() }),
        ModelPackageError,
      );
      expect(error).toBeInstanceOf(ModelPackageError);
      expect(error.code).toBe('MODEL_FILE_MISSING');
      const message = error.message;
      expect(message).toContain(`${host.url}/tiny-legacy/`);
      expect(message).toContain('the host answered an HTML page, not the file (often a single-page-app fallback');
      expect(message).not.toContain('sekret-key-123');
    });
  });

  test('a missing weights.onnx on a single-page-app host: MODEL_FILE_MISSING for that file', async () => {
    await withHost(
      'spa-fallback',
      async (host) => {
        const error = await rejection(payloadFrom(`${host.url}/tiny-legacy/`));
        expect(error.code).toBe('MODEL_FILE_MISSING');
        expect(error.message).toMatch(
          /^weights\.onnx is missing at http:\/\/127\.0\.0\.1:\d+\/tiny-legacy\/weights\.onnx: the host answered an HTML page/,
        );
      },
      ['weights.onnx'],
    );
  });

  test('a missing class_names.txt in the current layout says what the host answered', async () => {
    await withHost(
      'spa-fallback',
      async (host) => {
        const error = await rejection(payloadFrom(`${host.url}/tiny-current/`));
        expect(error.code).toBe('MODEL_FILE_MISSING');
        expect(error.message).toContain('class_names.txt is missing under');
        expect(error.message).toContain('the host answered an HTML page');
      },
      ['class_names.txt'],
    );
  });

  test('a required file that answers 403 is a download failure, with its status', async () => {
    await withHost(
      'forbidden',
      async (host) => {
        const error = await rejection(payloadFrom(`${host.url}/tiny-legacy/`));
        expect(error.code).toBe('MODEL_DOWNLOAD_FAILED');
        expect(error.message).toContain('answered 403');
      },
      ['weights.onnx'],
    );
  });
});

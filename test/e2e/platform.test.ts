import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { fetchPackageFiles } from '../../src/model/index.js';
import { createSegmenter, decodeMaskPng, rawFromPayload, type NodeSegmenter } from '../../src/node/index.js';
import {
  AuthenticationError,
  InvalidRequestError,
  NotFoundError,
  PlatformClient,
  PlatformError,
  type SearchResult,
} from '../../src/platform/index.js';
import { openPlatform, startPlatformServer, type PlatformServer, type PlatformState } from '../../server/index.js';
import { startOpenAiStandIn, STAND_IN_CAPTION, type OpenAiStandIn } from '../fixtures/openai-stand-in.js';
import { startStaticServer, type StaticServer } from '../fixtures/static-server.js';
import { ROOT, TINY } from '../helpers/paths.js';
import { parseJson, readJson, readJsonFile, type ErrorAnswer } from '../helpers/json.js';
import { anyString, stringContaining, stringMatching } from '../helpers/matchers.js';
import { rejection } from '../helpers/rejection.js';

/** The parts of a COCO export's _annotations.coco.json that these tests read. */
interface Coco {
  categories: { id: number; name: string }[];
  images: { id: number; file_name: string; width: number; height: number }[];
  annotations: { image_id: number; category_id: number; segmentation: { counts: number[]; size: [number, number] } }[];
}

const WS = 'edgeseg-demo';
const PROJECT = 'shapes';
const SAMPLES = join(ROOT, 'models', 'shapes', 'samples');
const manifest = JSON.parse(await readFile(join(SAMPLES, 'manifest.json'), 'utf8')) as {
  classes: string[];
  images: { id: string; name: string; file: string; mask: string; split: string; tags: string[]; batch: string }[];
};

let dir: string;
let server: PlatformServer;
let client: PlatformClient;
let provider: OpenAiStandIn;
let files: StaticServer;
let reference: NodeSegmenter;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'edgeseg-platform-'));
  server = await startPlatformServer({ port: 0, dataDir: dir, apiKey: 'local-test-key-0001', modelDir: TINY('tiny-legacy') });
  client = new PlatformClient({ apiKey: server.apiKey, baseUrl: server.baseUrl, inferenceUrl: server.inferenceUrl, retryBaseMs: 5 });
  provider = await startOpenAiStandIn();
  files = await startStaticServer(join(ROOT, 'models', 'shapes'));
  reference = await createSegmenter({ model: TINY('tiny-legacy'), numThreads: 1 });
});
afterAll(async () => {
  await server.close();
  await provider.close();
  await files.close();
  await reference.dispose();
  await rm(dir, { recursive: true, force: true });
});

const raw = (path: string, init?: RequestInit) => fetch(`${server.baseUrl}${path}`, init);
/** A GET with the path exactly as written (fetch would normalise dot segments away). */
const rawRequest = (path: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const { hostname, port } = new URL(server.baseUrl);
    const req = request({ hostname, port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
const withKey = (path: string) => `${path}${path.includes('?') ? '&' : '?'}api_key=${server.apiKey}`;

describe('catalog', () => {
  test("root, workspace, project and versions, shaped like the platform's answers", async () => {
    expect(await client.root()).toEqual({
      welcome: anyString(),
      instructions: 'You are successfully authenticated.',
      docs: anyString(),
      workspace: WS,
    });
    const { workspace } = await client.workspace(WS);
    expect(workspace).toMatchObject({ url: WS, members: 1 });
    expect(workspace.projects.map((p) => p.id)).toEqual([`${WS}/${PROJECT}`, `${WS}/people`]);
    const { project, versions } = await client.project(WS, PROJECT);
    expect(project).toMatchObject({
      type: 'semantic-segmentation',
      images: manifest.images.length,
      unannotated: 0,
      versions: 2,
      public: false,
    });
    expect(project.splits).toEqual({ train: 51, valid: 14, test: 7 });
    expect(Object.keys(project.classes)).toEqual(['circle', 'rectangle', 'triangle', 'star']);
    expect(versions.map((v) => v.id)).toEqual([`${WS}/${PROJECT}/1`, `${WS}/${PROJECT}/2`]);
    expect(versions[0]!.model).toEqual({});
    const { version } = await client.version(WS, PROJECT, 2);
    expect(version.model).toEqual({
      id: `${PROJECT}/2`,
      endpoint: `${server.inferenceUrl}/${PROJECT}/2`,
      type: 'semantic-segmentation',
      modelType: 'edgeseg-shapes',
      packageUrl: stringMatching(new RegExp(`^${server.baseUrl}/model-files/${WS}/${PROJECT}/2/signed\\.\\d+\\.[0-9a-f]{64}/$`)),
      classes: manifest.classes,
    });
  });

  test('the people project: the sample photos, version 1 the general model, version 2 the landscape one', async () => {
    const people = JSON.parse(await readFile(join(ROOT, 'models', 'people', 'samples', 'manifest.json'), 'utf8')) as {
      images: { id: string; file: string }[];
    };
    const { project, versions } = await client.project(WS, 'people');
    expect(project).toMatchObject({ type: 'semantic-segmentation', images: people.images.length, versions: 2 });
    expect(Object.keys(project.classes)).toEqual(['person']);
    expect(versions.map((v) => v.model?.modelType)).toEqual(['mediapipe-selfie-segmentation', 'mediapipe-selfie-segmentation-landscape']);
    for (const [number, folder] of [
      [1, 'general'],
      [2, 'landscape'],
    ] as const) {
      const { ort } = await client.ort('people', number);
      expect(ort.classes).toEqual(['background', 'person']);
      expect(
        Buffer.from(await (await fetch(ort.model)).arrayBuffer()).equals(
          await readFile(join(ROOT, 'models', 'people', folder, 'weights.onnx')),
        ),
      ).toBe(true);
    }
    // The hosted route runs the bundled people model: the same payload as edgeseg/node with it.
    const photo = join(ROOT, 'models', 'people', 'samples', people.images[0]!.file);
    const seg = await createSegmenter({ model: 'people' });
    try {
      expect(await client.segmentHosted('people', 1, new Uint8Array(await readFile(photo)))).toEqual(await seg.segment(photo));
    } finally {
      await seg.dispose();
    }
    // Each photo was seeded with the people model's own classes: a person in every one.
    const found = await client.search(WS, 'people', { class_name: 'person', fields: ['id', 'labels'] });
    expect(found.results.map((r) => r.id).sort()).toEqual(people.images.map((i) => `people-${i.id}`).sort());
    expect(found.results.map((r) => r.labels)).toEqual(people.images.map(() => ['person']));
  });

  test('the ort route points at the model package files, which carry CORS and CORP headers', async () => {
    const { ort } = await client.ort(PROJECT, 2);
    expect(ort.classes).toEqual(manifest.classes);
    const weights = await fetch(ort.model);
    expect(weights.headers.get('access-control-allow-origin')).toBe('*');
    expect(weights.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(Buffer.from(await weights.arrayBuffer()).equals(await readFile(join(TINY('tiny-legacy'), 'weights.onnx')))).toBe(true);
    expect(JSON.parse(await (await fetch(ort.environment!)).text())).toEqual(
      JSON.parse(await readFile(join(TINY('tiny-legacy'), 'environment.json'), 'utf8')),
    );
    expect(await rejection(client.ort(PROJECT, 1))).toBeInstanceOf(NotFoundError);
  });

  test('file URLs are signed: the handed-out URLs work, unsigned or altered ones are 403 (with CORS, CORP)', async () => {
    const expect403 = async (url: string, type: string) => {
      const r = await fetch(url);
      expect(r.status, url).toBe(403);
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect((await readJson<ErrorAnswer>(r)).error.type).toBe(type);
    };
    const unsigned = (u: string) => u.replace(/\?.*$/, '');
    const { ort } = await client.ort(PROJECT, 2);
    const before = Math.floor(Date.now() / 1000);
    const model = new URL(ort.model);
    expect(model.pathname).toBe(`/model-files/${WS}/${PROJECT}/2/weights.onnx`);
    expect([...model.searchParams.keys()]).toEqual(['expires', 'sig']);
    // A day ahead (the default lifetime) of the moment it was signed, which lies between these two.
    const expires = Number(model.searchParams.get('expires'));
    expect(expires).toBeGreaterThanOrEqual(before + 86_400);
    expect(expires).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 86_400);
    await expect403(unsigned(ort.model), 'SignatureRequired');
    await expect403(
      ort.model.replace(/sig=(.)/, (_, c: string) => `sig=${c === '0' ? '1' : '0'}`),
      'InvalidSignature',
    );
    await expect403(
      ort.model.replace(/expires=(\d+)/, (_, e: string) => `expires=${Number(e) + 1000}`),
      'InvalidSignature',
    );
    await expect403(`${unsigned(ort.model)}?expires=1&sig=zz`, 'InvalidSignature');
    // The version folder's signature covers its files, and no other version's.
    const env = new URL(ort.environment!);
    expect(env.search).toBe(model.search);
    await expect403(`${server.baseUrl}/model-files/${WS}/${PROJECT}/1/weights.onnx${model.search}`, 'InvalidSignature');
    // An unsigned request learns nothing, not even whether the file exists.
    await expect403(`${server.baseUrl}/model-files/${WS}/${PROJECT}/9/weights.onnx`, 'SignatureRequired');

    // The version record's packageUrl is a folder (signature in the path) that the package loader can use.
    const { version } = await client.version(WS, PROJECT, 2);
    const packageUrl = (version.model as { packageUrl: string }).packageUrl;
    const files = await fetchPackageFiles(packageUrl);
    expect(Buffer.from(files['weights.onnx']!).equals(await readFile(join(TINY('tiny-legacy'), 'weights.onnx')))).toBe(true);
    expect(Object.keys(files).sort()).toEqual(['class_names.txt', 'environment.json', 'model_type.json', 'weights.onnx']);
    await expect403(`${packageUrl.replace(/signed\.(\d+)\./, 'signed.$1.0')}weights.onnx`, 'InvalidSignature');

    // Image URLs from search and image records.
    const sample = manifest.images[0]!;
    const [hit] = (await client.search(WS, PROJECT, { like_image: sample.id, limit: 1, fields: ['id', 'image_url'] })).results;
    expect(hit!.id).toBe(sample.id);
    const image = await fetch(hit!.image_url);
    expect(image.status).toBe(200);
    expect(image.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(image.headers.get('content-type')).toBe('image/jpeg');
    expect(Buffer.from(await image.arrayBuffer()).equals(await readFile(join(SAMPLES, sample.file)))).toBe(true);
    await expect403(unsigned(hit!.image_url), 'SignatureRequired');
    // A signature is for one file: another image's path with this signature is refused.
    await expect403(hit!.image_url.replace(sample.id, manifest.images[1]!.id), 'InvalidSignature');
    const record = await client.image(WS, PROJECT, sample.id);
    expect(record.image).toMatchObject({ id: sample.id, name: sample.name, split: sample.split, tags: sample.tags });
    expect((await fetch(record.image.urls.original)).status).toBe(200);
    await expect403(unsigned(record.image.urls.original), 'SignatureRequired');
  });

  test('png-mask-semantic export: a zip of images, class-id masks and _classes.csv per split', async () => {
    const answer = await client.exportFormat(WS, PROJECT, 2, 'png-mask-semantic');
    if (!('export' in answer)) throw new Error('expected a link');
    const zip = unzipSync(new Uint8Array(await (await fetch(answer.export.link)).arrayBuffer()));
    const names = Object.keys(zip);
    expect(new Set(names.map((n) => n.split('/')[0]))).toEqual(new Set(['train', 'valid', 'test']));
    expect(new TextDecoder().decode(zip['train/_classes.csv'])).toBe(
      'Pixel Value, Class\n0, background\n1, circle\n2, rectangle\n3, triangle\n4, star\n',
    );
    for (const image of manifest.images) {
      const stem = image.name.replace(/\.jpg$/, '');
      expect(Buffer.from(zip[`${image.split}/${image.name}`]!).equals(await readFile(join(SAMPLES, image.file)))).toBe(true);
      const mask = decodeMaskPng(zip[`${image.split}/${stem}_mask.png`]!);
      expect(
        Buffer.from(mask.classIds).equals(Buffer.from(decodeMaskPng(new Uint8Array(await readFile(join(SAMPLES, image.mask)))).classIds)),
      ).toBe(true);
    }
    expect(names.filter((n) => n.endsWith('_mask.png'))).toHaveLength(manifest.images.length);
    expect((await client.version(WS, PROJECT, 2)).version.exports).toEqual(['png-mask-semantic']);
  });

  test('COCO segmentation export: per-class RLE annotations that decode to the masks', async () => {
    const answer = await client.exportFormat(WS, PROJECT, 2, 'coco-segmentation');
    if (!('export' in answer)) throw new Error('expected a link');
    const zip = unzipSync(new Uint8Array(await (await fetch(answer.export.link)).arrayBuffer()));
    const coco = parseJson<Coco>(zip['valid/_annotations.coco.json']!);
    expect(coco.categories.map((c) => [c.id, c.name])).toEqual([
      [1, 'circle'],
      [2, 'rectangle'],
      [3, 'triangle'],
      [4, 'star'],
    ]);
    const valid = manifest.images.filter((i) => i.split === 'valid');
    expect(coco.images.map((i) => i.file_name).sort()).toEqual(valid.map((i) => i.name).sort());
    // Decode every annotation's column-major RLE and compare with the mask.
    for (const img of coco.images) {
      const sample = valid.find((v) => v.name === img.file_name)!;
      const mask = decodeMaskPng(new Uint8Array(await readFile(join(SAMPLES, sample.mask))));
      const rebuilt = new Uint8Array(mask.classIds.length);
      for (const a of coco.annotations.filter((x) => x.image_id === img.id)) {
        let pos = 0;
        a.segmentation.counts.forEach((run, k) => {
          if (k % 2 === 1)
            for (let j = pos; j < pos + run; j++) rebuilt[(j % img.height) * img.width + Math.floor(j / img.height)] = a.category_id;
          pos += run;
        });
        expect(a.segmentation.size).toEqual([img.height, img.width]);
      }
      expect(Buffer.from(rebuilt).equals(Buffer.from(mask.classIds))).toBe(true);
    }
  });

  test('signed URLs work under a mount prefix (as in npm start), and a signature is not tied to the prefix', async () => {
    const mounted = await openPlatform({ dataDir: dir, prefix: '/api', modelDir: TINY('tiny-legacy') });
    const http = createServer((req, res) => mounted.handler(req, res));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}/api`;
      const page = (await (
        await fetch(`${base}/${WS}/${PROJECT}/search?api_key=${mounted.apiKey}`, {
          method: 'POST',
          body: '{"limit": 1, "fields": ["image_url"]}',
        })
      ).json()) as { results: { image_url: string }[] };
      const url = page.results[0]!.image_url;
      expect(url.startsWith(`${base}/image-files/${WS}/${PROJECT}/`)).toBe(true);
      expect((await fetch(url)).status).toBe(200);
      expect((await fetch(url.replace(base, server.baseUrl))).status).toBe(200);
    } finally {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
      await mounted.handler.close();
    }
  });

  test('an export link is signed', async () => {
    const answer = await client.exportFormat(WS, PROJECT, 2, 'png-mask-semantic');
    if (!('export' in answer)) throw new Error('expected a link');
    expect(new URL(answer.export.link).searchParams.get('sig')).toMatch(/^[0-9a-f]{64}$/);
    const unsigned = await fetch(answer.export.link.replace(/\?.*$/, ''));
    expect(unsigned.status).toBe(403);
    expect((await readJson<ErrorAnswer>(unsigned)).error.type).toBe('SignatureRequired');
    const renamed = await fetch(answer.export.link.replace('.zip?', '-other.zip?'));
    expect(renamed.status).toBe(403);
  });

  test('an unknown export format is a 400', async () => {
    expect(await rejection(client.exportFormat(WS, PROJECT, 2, 'yolov8'))).toBeInstanceOf(InvalidRequestError);
  });
});

describe('search', () => {
  const all = async (query: Record<string, unknown> = {}) => {
    const results: Partial<SearchResult>[] = [];
    for await (const page of client.searchAll(WS, PROJECT, { limit: 25, ...query })) results.push(...page.results);
    return results;
  };

  test('every filter, and total', async () => {
    const expectIds = async (query: Record<string, unknown>, keep: (i: (typeof manifest.images)[number]) => boolean) => {
      const page = await client.search(WS, PROJECT, { ...query, limit: 250 });
      const expected = manifest.images
        .filter(keep)
        .map((i) => i.id)
        .sort();
      expect(page.total).toBe(expected.length);
      expect(page.results.map((r) => r.id).sort()).toEqual(expected);
    };
    await expectIds({ tag: 'crowded' }, (i) => i.tags.includes('crowded'));
    await expectIds({ class_name: 'triangle' }, (i) => i.tags.includes('triangle'));
    await expectIds({ in_dataset: 'valid' }, (i) => i.split === 'valid');
    await expectIds({ in_dataset: true }, () => true);
    await expectIds({ batch_id: 'field-test' }, (i) => i.batch === 'field-test');
    await expectIds({ batch: true, tag: 'star', class_name: 'circle' }, (i) => i.tags.includes('star') && i.tags.includes('circle'));
  });

  test('fields, defaults (limit 50, [id, created]) and paging with searchAll', async () => {
    const page = await client.search(WS, PROJECT, {});
    expect(page.results).toHaveLength(50);
    expect(page.total).toBe(72);
    expect(Object.keys(page.results[0]!).sort()).toEqual(['created', 'id']);
    // Exactly the fields asked for, in the order asked; the local extensions only when named.
    const some = await client.search(WS, PROJECT, { fields: ['name', 'tags', 'split'], limit: 1 });
    expect(Object.keys(some.results[0]!)).toEqual(['name', 'tags', 'split']);
    const ranked = await client.search(WS, PROJECT, { prompt: 'stars', fields: ['id', 'score', 'image_url'], limit: 1 });
    expect(Object.keys(ranked.results[0]!)).toEqual(['id', 'score', 'image_url']);
    expect(ranked.results[0]!.score).toBeGreaterThan(0);
    expect(new URL(ranked.results[0]!.image_url).pathname).toBe(`/image-files/${WS}/${PROJECT}/${ranked.results[0]!.id}`);
    expect((await client.search(WS, PROJECT, { fields: ['score'], limit: 1 })).results[0]).toEqual({ score: null });
    const everything = await all();
    expect(everything.map((r) => r.id).sort()).toEqual(manifest.images.map((i) => i.id).sort());
  });

  test('above 250 is refused by the server too', async () => {
    const r = await raw(withKey(`/${WS}/${PROJECT}/search`), { method: 'POST', body: JSON.stringify({ limit: 251 }) });
    expect(r.status).toBe(400);
    expect((await readJson<ErrorAnswer>(r)).error).toMatchObject({ type: 'ValidationError', message: stringContaining('1..250') });
  });

  test('like_image ranks by the cosine similarity of the embeddings, as documented', async () => {
    const ref = manifest.images[5]!.id;
    const ranked = await all({ like_image: ref, fields: ['id', 'embedding'] });
    const embeddingOf = new Map(ranked.map((r) => [r.id, r.embedding as number[]]));
    const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
    const score = (id: string | undefined) => dot(embeddingOf.get(ref)!, embeddingOf.get(id)!);
    expect(ranked[0]!.id).toBe(ref);
    for (let i = 1; i < ranked.length; i++) expect(score(ranked[i - 1]!.id)).toBeGreaterThanOrEqual(score(ranked[i]!.id) - 1e-12);
  });

  test('a prompt ranks by its embedding: "star" by the star dimension, "red" by the red colour bin', async () => {
    const classDims = manifest.classes.filter((c) => c !== 'background');
    const byStar = await all({ prompt: 'find the stars', fields: ['id', 'embedding'] });
    const star = (r: Partial<SearchResult>) => (r.embedding as number[])[classDims.indexOf('star')]!;
    for (let i = 1; i < byStar.length; i++) expect(star(byStar[i - 1]!)).toBeGreaterThanOrEqual(star(byStar[i]!) - 1e-12);
    expect(manifest.images.find((m) => m.id === byStar[0]!.id)!.tags).toContain('star');
    // Red (230, 30, 30) is bin (2·3 + 0)·3 + 0 = 18 of the 27 colour bins, after the class dimensions.
    const byRed = await all({ prompt: 'RED', fields: ['id', 'embedding'] });
    const red = (r: Partial<SearchResult>) => (r.embedding as number[])[classDims.length + 18]!;
    for (let i = 1; i < byRed.length; i++) expect(red(byRed[i - 1]!)).toBeGreaterThanOrEqual(red(byRed[i]!) - 1e-12);
  });

  test('an unknown like_image is a 404', async () => {
    expect(await rejection(client.search(WS, PROJECT, { like_image: 'nope' }))).toBeInstanceOf(NotFoundError);
  });
});

describe('hosted segmentation', () => {
  const sample = manifest.images[0]!;
  test('bytes and a URL both give the payload of the shared pipeline', async () => {
    const bytes = await readFile(join(SAMPLES, sample.file));
    const expected = await reference.segment(bytes, { confidence: 40 });
    expect(await client.segmentHosted(PROJECT, 2, new Uint8Array(bytes), { confidence: 40 })).toEqual(expected);
    expect(await client.segmentHosted(PROJECT, 2, `${files.url}/samples/${sample.file}`, { confidence: 40 })).toEqual(expected);
  });

  test('a version without a model is a 404, a bad confidence or image URL a 400', async () => {
    expect(await rejection(client.segmentHosted(PROJECT, 1, new Uint8Array(await readFile(join(SAMPLES, sample.file)))))).toBeInstanceOf(
      NotFoundError,
    );
    const cases: [string, RequestInit | undefined, number][] = [
      [`/infer/${PROJECT}/2?confidence=101&image=${encodeURIComponent(`${files.url}/samples/${sample.file}`)}`, undefined, 400],
      [`/infer/${PROJECT}/2?image=${encodeURIComponent('file:///etc/passwd')}`, undefined, 400],
      [`/infer/${PROJECT}/2?image=${encodeURIComponent(`${files.url}/samples/${sample.file}`)}`, { body: 'aGVsbG8=' }, 400],
      [`/infer/${PROJECT}/2`, { body: 'not base64 !!!' }, 400],
      [`/infer/${PROJECT}/2`, { body: Buffer.from('hello').toString('base64') }, 400],
    ];
    for (const [path, init, status] of cases) {
      const r = await raw(withKey(path), { method: 'POST', ...init });
      expect(r.status).toBe(status);
      expect((await readJson<ErrorAnswer>(r)).error.message).toEqual(anyString());
    }
  });

  test('image URLs over the byte limit are 413, slow ones 504 ImageFetchTimeout; a base64 body over the limit is 413', async () => {
    // A server whose answers are too big, or stall: before the headers, or halfway through the body.
    const big = Buffer.alloc(60_000, 7);
    const stalled: ServerResponse[] = [];
    const origin = createServer((req, res) => {
      if (req.url === '/big') res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': big.length }).end(big);
      else if (req.url === '/big-chunked') {
        res.writeHead(200, { 'content-type': 'image/jpeg' });
        for (let i = 0; i < 6; i++) res.write(big.subarray(i * 10_000, (i + 1) * 10_000));
        res.end();
      } else if (req.url === '/stall-body') {
        res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': 40_000 });
        res.write(big.subarray(0, 1000));
        stalled.push(res);
      } else stalled.push(res);
    });
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    const at = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
    const limited = await startPlatformServer({
      port: 0,
      dataDir: dir,
      modelDir: TINY('tiny-legacy'),
      limits: { maxImageBytes: 50_000, fetchTimeoutMs: 300 },
    });
    // The size cases with a timeout no machine is slow enough to reach first.
    const patient = await startPlatformServer({
      port: 0,
      dataDir: dir,
      modelDir: TINY('tiny-legacy'),
      limits: { maxImageBytes: 50_000, fetchTimeoutMs: 60_000 },
    });
    const post = async (query: string, body?: string, on = limited) => {
      const r = await fetch(`${on.inferenceUrl}/${PROJECT}/2?api_key=${on.apiKey}${query}`, {
        method: 'POST',
        ...(body === undefined ? {} : { body }),
      });
      return { status: r.status, error: ((await r.json()) as { error: { type: string; message: string } }).error };
    };
    try {
      for (const path of ['/big', '/big-chunked']) {
        const r = await post(`&image=${encodeURIComponent(at + path)}`, undefined, patient);
        expect([r.status, r.error.type], path).toEqual([413, 'PayloadTooLarge']);
        expect(r.error.message).toContain('50000 bytes');
      }
      for (const path of ['/stall-headers', '/stall-body']) {
        const r = await post(`&image=${encodeURIComponent(at + path)}`);
        expect([r.status, r.error.type], path).toEqual([504, 'ImageFetchTimeout']);
        // These answers never end: a 504 at all shows the timeout cut them off.
        expect(r.error.message).toBe('fetching the image took longer than 300 ms');
      }
      // Over the body limit (base64 of 60 kB): refused before decoding; under it but decoding to over 50 kB: refused too.
      for (const bytes of [60_000, 51_000]) {
        const r = await post('', Buffer.alloc(bytes, 1).toString('base64'));
        expect([r.status, r.error.type], String(bytes)).toEqual([413, 'PayloadTooLarge']);
      }
      // And it keeps serving.
      const ok = await fetch(`${limited.inferenceUrl}/${PROJECT}/2?api_key=${limited.apiKey}`, {
        method: 'POST',
        body: (await readFile(join(SAMPLES, manifest.images[0]!.file))).toString('base64'),
      });
      expect(ok.status).toBe(200);
    } finally {
      for (const res of stalled) res.destroy();
      origin.closeAllConnections();
      await new Promise<void>((resolve) => origin.close(() => resolve()));
      await limited.close();
      await patient.close();
    }
  });

  test('50 concurrent requests answered correctly while search requests continue', async () => {
    const images = manifest.images.slice(0, 10);
    const bytes = await Promise.all(images.map((i) => readFile(join(SAMPLES, i.file))));
    const expected = await Promise.all(bytes.map((b) => reference.segment(b)));
    let searching = true;
    let searches = 0;
    const searchLoop = (async () => {
      while (searching) {
        expect((await client.search(WS, PROJECT, { prompt: 'circle', limit: 5 })).results).toHaveLength(5);
        searches++;
      }
    })();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => client.segmentHosted(PROJECT, 2, new Uint8Array(bytes[i % 10]!))),
    );
    searching = false;
    await searchLoop;
    answers.forEach((a, i) => expect(a).toEqual(expected[i % 10]));
    expect(searches).toBeGreaterThan(0);
  });
});

/** The image a vision request carried (its data URL). */
const imageSent = (request: { body: Record<string, unknown> }) =>
  (request.body.messages as { content: { type: string; image_url?: { url: string } }[] }[])[0]!.content.find((c) => c.type === 'image_url')!
    .image_url!.url;

describe('synthetic images', () => {
  test('without a provider key: a clear 4xx, nothing stored', async () => {
    const before = (await client.project(WS, PROJECT)).project.images;
    const error = await rejection(client.generateSyntheticImage({ prompt: 'a red circle' }), InvalidRequestError);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.type).toBe('ProviderNotConfigured');
    expect(error.hint).toMatch(/settings/);
    expect((await client.project(WS, PROJECT)).project.images).toBe(before);
    expect(provider.requests).toHaveLength(0);
  });

  test("describes the image (cached per id), builds the prompt, generates with the platform's defaults, stores the images", async () => {
    const put = await raw(withKey(`/${WS}/settings`), {
      method: 'PUT',
      body: JSON.stringify({ providerApiKey: provider.key, providerBaseUrl: provider.url }),
    });
    expect(await put.json()).toEqual({ settings: { providerConfigured: true, providerBaseUrl: provider.url, captionModel: 'gpt-4o' } });
    const image = manifest.images[3]!.id;
    const answer = await client.generateSyntheticImage({
      prompt: 'Make the star blue.',
      image,
      image_type: 'id',
      project_url: PROJECT,
      size: '256x256',
    });
    const [caption, generation] = provider.requests;
    expect(caption!.path).toBe('/v1/chat/completions');
    expect(caption!.authorization).toBe(`Bearer ${provider.key}`);
    // The seeded image is a JPEG, and is sent as one, byte for byte.
    expect(imageSent(caption!)).toBe(
      `data:image/jpeg;base64,${(await readFile(join(SAMPLES, manifest.images[3]!.file))).toString('base64')}`,
    );
    expect(generation!.path).toBe('/v1/images/generations');
    expect(generation!.body).toEqual({
      model: 'dall-e-3',
      n: 1,
      size: '256x256',
      quality: 'hd',
      style: 'natural',
      response_format: 'b64_json',
      prompt: `${STAND_IN_CAPTION} Make the star blue. Photorealistic photograph, natural lighting, realistic textures, sharp focus, high detail.`,
    });
    expect(answer.caption).toBe(STAND_IN_CAPTION);
    expect(answer.images).toHaveLength(1);
    const stored = answer.images[0]!;
    expect([stored.width, stored.height]).toEqual([256, 256]);
    expect((await fetch(stored.url)).headers.get('content-type')).toBe('image/png');
    // Stored in the project, outside the dataset, tagged.
    const found = await client.search(WS, PROJECT, { in_dataset: false, fields: ['id', 'tags', 'split'] });
    // Compared without the signature: URLs signed in different seconds differ in `expires`.
    expect(found.results).toEqual([{ id: stored.id, tags: ['synthetic'], split: null }]);
    const { image: record } = await client.image(WS, PROJECT, stored.id);
    expect(new URL(record.urls.original).pathname).toBe(new URL(stored.url).pathname);
    expect(record).toMatchObject({ id: stored.id, width: 256, height: 256, tags: ['synthetic'], split: null, owner: 'synthetic-image' });

    // The caption is cached per image id…
    await client.generateSyntheticImage({ prompt: 'again', image, image_type: 'id', project_url: PROJECT, size: '256x256' });
    expect(provider.requests.map((r) => r.path)).toEqual(['/v1/chat/completions', '/v1/images/generations', '/v1/images/generations']);
    // …unless asked otherwise; and an unmodified prompt goes as it is.
    await client.generateSyntheticImage({
      prompt: 'exactly this',
      image,
      image_type: 'id',
      project_url: PROJECT,
      force_caption_regenerate: true,
      unmodified_prompt: true,
      size: '256x256',
    });
    expect(provider.requests.slice(3).map((r) => r.path)).toEqual(['/v1/chat/completions', '/v1/images/generations']);
    expect(provider.requests.at(-1)!.body.prompt).toBe('exactly this');

    // A generated image is a PNG: it goes to the vision model as image/png, not as a JPEG.
    const before = provider.requests.length;
    await client.generateSyntheticImage({ prompt: 'more', image: stored.id, image_type: 'id', project_url: PROJECT, size: '256x256' });
    const described = provider.requests[before]!;
    expect(described.path).toBe('/v1/chat/completions');
    expect(imageSent(described)).toBe(
      `data:image/png;base64,${Buffer.from(await (await fetch(stored.url)).arrayBuffer()).toString('base64')}`,
    );
  });

  test('n must be a whole number in 1..10: a 400 naming it before the provider is asked', async () => {
    const before = provider.requests.length;
    for (const n of ['0', '-1', '1.5', '11', '1e30', '"2"']) {
      const r = await raw(withKey('/synthetic-image'), { method: 'POST', body: `{"prompt": "a circle", "n": ${n}}` });
      expect(r.status, n).toBe(400);
      expect((await readJson<ErrorAnswer>(r)).error).toMatchObject({
        type: 'ValidationError',
        code: 'ValidationError',
        field: 'n',
        message: `n must be a whole number in 1..10, got ${JSON.stringify(JSON.parse(n))}`,
      });
    }
    expect(provider.requests.length).toBe(before);
  });

  test("the provider's refusal comes back as a 4xx with its status and error type, not its words; the key never shows", async () => {
    const error = await rejection(client.generateSyntheticImage({ prompt: 'two please', n: 2, project_url: PROJECT }));
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.message).toContain('the image provider refused: it answered 400 (invalid_request_error)');
    // Its body is not echoed: with providerBaseUrl naming a local service, it would be read through this route.
    expect(error.message).not.toContain('You must provide n=1 for this model.');
    const settings = await (await raw(withKey(`/${WS}/settings`))).text();
    expect(settings).not.toContain(provider.key);
    expect(JSON.stringify(error)).not.toContain(provider.key);
  });
});

describe('errors and limits', () => {
  test("api_key: missing or wrong is 401, another workspace's key is 403", async () => {
    expect((await raw(`/${WS}`)).status).toBe(401);
    expect((await raw(`/${WS}?api_key=wrong`)).status).toBe(401);
    await server.store.update((s) => {
      s.workspaces.push({ url: 'other', name: 'Other', apiKey: 'other-key-000001', settings: {}, captions: {}, projects: [] });
    });
    const other = new PlatformClient({
      apiKey: 'other-key-000001',
      baseUrl: server.baseUrl,
      inferenceUrl: server.inferenceUrl,
      maxRetries: 0,
    });
    expect((await other.root()).workspace).toBe('other');
    const e = await rejection(other.workspace(WS));
    expect(e).toBeInstanceOf(AuthenticationError);
    expect(e.status).toBe(403);
    expect((await rejection(other.segmentHosted(PROJECT, 2, 'http://127.0.0.1/x.jpg'))).status).toBe(404);
  });

  test("each bad request is a clear 4xx in the platform's error shape, and the server keeps serving", async () => {
    const cases: [string, RequestInit, number][] = [
      [withKey(`/${WS}/${PROJECT}/search`), { method: 'POST', body: '{"limit": ' }, 400],
      [withKey(`/${WS}/${PROJECT}/search`), { method: 'POST', body: '[1, 2]' }, 400],
      [withKey(`/${WS}/${PROJECT}/search`), { method: 'POST', body: JSON.stringify({ tag: 5 }) }, 400],
      [withKey(`/${WS}/${PROJECT}/search`), { method: 'POST', body: JSON.stringify({ fields: ['id', 'password'] }) }, 400],
      [withKey(`/${WS}/${PROJECT}/search`), { method: 'POST', body: 'x'.repeat(2_000_000) }, 413],
      [withKey(`/${WS}/${PROJECT}/latest`), { method: 'GET' }, 400],
      [withKey(`/${WS}/nope`), { method: 'GET' }, 404],
      [withKey(`/synthetic-image`), { method: 'POST', body: JSON.stringify({ prompt: 'x', image: 'abc', image_type: 'file' }) }, 400],
    ];
    for (const [path, init, status] of cases) {
      const r = await raw(path, init);
      expect(r.status, path).toBe(status);
      const body = await readJson<ErrorAnswer>(r);
      expect(body.error).toEqual({
        message: anyString(),
        type: anyString(),
        code: body.error.type,
        ...(body.error.hint ? { hint: anyString() } : {}),
        ...(body.error.field ? { field: anyString() } : {}),
      });
      expect((await client.root()).workspace).toBe(WS);
    }
  });

  test('a path that tries to leave its folder is a 400 (sent as is, without URL normalisation)', async () => {
    for (const path of [
      `/${WS}/%2e%2e/${PROJECT}`,
      `/${WS}/..%2F..%2Fetc%2Fpasswd`,
      `/model-files/${WS}/${PROJECT}/2/..%2F..%2Fplatform.json`,
      `/image-files/${WS}/${PROJECT}/%2e%2e`,
    ]) {
      const { status, body } = await rawRequest(withKey(path));
      expect(status, path).toBe(400);
      expect(parseJson<ErrorAnswer>(body).error.type).toBe('ValidationError');
    }
    expect((await client.root()).workspace).toBe(WS);
  });

  test('CORS: loopback origins are granted (preflights say so), others are refused', async () => {
    const preflight = (origin: string) =>
      raw(`/${WS}/${PROJECT}/search`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } });
    for (const origin of ['http://localhost:3000', 'http://127.0.0.1:8080', 'https://app.localhost', 'http://[::1]:5173']) {
      const pre = await preflight(origin);
      expect(pre.status, origin).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe(origin);
      expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
      expect(pre.headers.get('vary')).toBe('Origin');
    }
    for (const origin of ['http://elsewhere.test', 'null', 'http://localhost.evil.test', 'http://0.0.0.0:8080']) {
      const pre = await preflight(origin);
      expect(pre.status, origin).toBe(403);
      expect(pre.headers.get('access-control-allow-origin')).toBeNull();
      expect((await readJson<ErrorAnswer>(pre)).error.code).toBe('OriginNotAllowed');
    }
    // No Origin (a client that is not a page): nothing to grant.
    expect((await raw(withKey('/'))).headers.get('access-control-allow-origin')).toBeNull();
  });

  test('an image over the pixel limit is refused', async () => {
    const small = await startPlatformServer({ port: 0, dataDir: dir, modelDir: TINY('tiny-legacy'), limits: { maxPixels: 1000 } });
    const c = new PlatformClient({ apiKey: small.apiKey, baseUrl: small.baseUrl, inferenceUrl: small.inferenceUrl, maxRetries: 0 });
    const e = await rejection(
      c.segmentHosted(PROJECT, 2, new Uint8Array(await readFile(join(SAMPLES, manifest.images[0]!.file)))),
      PlatformError,
    );
    expect(e.status).toBe(413);
    expect(e.type).toBe('IMAGE_TOO_LARGE');
    await small.close();
  });
});

describe('persistence', () => {
  test('settings, generated images, the caption cache and handed-out file URLs survive a restart', async () => {
    const before = await client.search(WS, PROJECT, { in_dataset: false });
    expect(before.total).toBeGreaterThan(0);
    const imageUrl = (await client.search(WS, PROJECT, { in_dataset: false, fields: ['image_url'], limit: 1 })).results[0]!.image_url;
    await server.close();
    server = await startPlatformServer({ port: 0, dataDir: dir, modelDir: TINY('tiny-legacy') });
    client = new PlatformClient({ apiKey: server.apiKey, baseUrl: server.baseUrl, inferenceUrl: server.inferenceUrl });
    expect(server.apiKey).toBe('local-test-key-0001');
    expect((await client.search(WS, PROJECT, { in_dataset: false })).results.map((r) => r.id)).toEqual(before.results.map((r) => r.id));
    expect(await (await raw(withKey(`/${WS}/settings`))).json()).toMatchObject({ settings: { providerConfigured: true } });
    expect(
      rawFromPayload(await client.segmentHosted(PROJECT, 2, new Uint8Array(await readFile(join(SAMPLES, manifest.images[0]!.file))))).width,
    ).toBeGreaterThan(0);
    // The signing secret lives in the data directory: a URL signed before the restart still works (on the new port).
    const again = await fetch(imageUrl.replace(/^http:\/\/[^/]+/, server.baseUrl));
    expect(again.status).toBe(200);
    expect(again.headers.get('content-type')).toBe('image/png');
    // The caption of image 3 was cached before the restart: the provider's vision model is not asked again.
    const asked = provider.requests.length;
    const answer = await client.generateSyntheticImage({
      prompt: 'once more',
      image: manifest.images[3]!.id,
      image_type: 'id',
      project_url: PROJECT,
      size: '256x256',
    });
    expect(answer.caption).toBe(STAND_IN_CAPTION);
    expect(provider.requests.slice(asked).map((r) => r.path)).toEqual(['/v1/images/generations']);
  });

  test("--api-key sets the default workspace's key on every start, and the key is kept", async () => {
    await server.close();
    server = await startPlatformServer({ port: 0, dataDir: dir, modelDir: TINY('tiny-legacy'), apiKey: 'local-test-key-0002' });
    expect(server.apiKey).toBe('local-test-key-0002');
    const root = async (key: string) => (await raw(`/?api_key=${key}`)).status;
    expect(await root('local-test-key-0001')).toBe(401);
    expect(await root('local-test-key-0002')).toBe(200);
    expect((await readJsonFile<PlatformState>(join(dir, 'platform.json'))).workspaces[0]!.apiKey).toBe('local-test-key-0002');
    // Restarted without a key: the last one given stays.
    await server.close();
    server = await startPlatformServer({ port: 0, dataDir: dir, modelDir: TINY('tiny-legacy') });
    expect(server.apiKey).toBe('local-test-key-0002');
    expect(await root('local-test-key-0002')).toBe(200);
    expect(await root('local-test-key-0001')).toBe(401);
    // Another workspace's key cannot be taken over.
    await expect(startPlatformServer({ port: 0, dataDir: dir, modelDir: TINY('tiny-legacy'), apiKey: 'other-key-000001' })).rejects.toThrow(
      'already belongs to workspace other',
    );
  });
});

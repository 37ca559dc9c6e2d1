// The local platform as Roboflow's Python SDK sees it: the SDK's requests, replayed against a real `edgeseg serve`
// on loopback, one test per flow, with the method, path, query, headers and body shape the SDK sends, asserting
// on what the SDK reads from each answer. Read from roboflow-python 1.4.0, commit
// c731b4ec109ebb6a3aaf3a9b0815aefd20e9d242 (roboflow/__init__.py, adapters/rfapi.py, core/{project,version,
// training}.py, models/inference.py, util/{image_utils,prediction}.py); requests 2.28 writes the bytes. No Python
// runs here: docs/platform.md says how the SDK itself was run against the server.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSegmenter, decodeMaskPng, type NodeSegmenter, type SegmentationPayload } from '../../src/node/index.js';
import { startPlatformServer, type PlatformServer } from '../../server/index.js';
import { startStaticServer, type StaticServer } from '../fixtures/static-server.js';
import { parseJson, type ErrorAnswer } from '../helpers/json.js';
import { ROOT, TINY } from '../helpers/paths.js';

const WS = 'edgeseg-demo';
const PROJECT = 'shapes';
// The SDK validates a key with POST / only when it has a lower-case letter (check_key); the server's keys do.
const KEY = 'sdk-replay-key-0001';
const SAMPLES = join(ROOT, 'models', 'shapes', 'samples');
const manifest = parseJson<{
  classes: string[];
  images: { id: string; name: string; file: string; width: number; height: number; split: string; tags: string[]; batch: string }[];
}>(await readFile(join(SAMPLES, 'manifest.json')));
const sample = manifest.images[0]!;

let dir: string;
let server: PlatformServer;
let files: StaticServer;
let reference: NodeSegmenter;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'edgeseg-sdk-'));
  server = await startPlatformServer({ port: 0, dataDir: dir, apiKey: KEY, modelDir: TINY('tiny-legacy') });
  files = await startStaticServer(SAMPLES);
  reference = await createSegmenter({ model: TINY('tiny-legacy'), numThreads: 1 });
});
afterAll(async () => {
  await server.close();
  await files.close();
  await reference.dispose();
  await rm(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** What python-requests 2.28 sends with every request (the SDK sets no headers of its own but Content-Type). */
const REQUESTS_HEADERS = {
  'user-agent': 'python-requests/2.28.1',
  'accept-encoding': 'gzip, deflate, br',
  accept: '*/*',
  connection: 'keep-alive',
};

/** One request as requests sends it: POST without data still says `Content-Length: 0`. */
function send(method: string, url: string, body?: { type: string; bytes: Buffer }): Promise<Answer> {
  const target = new URL(url);
  const headers: Record<string, string> = { ...REQUESTS_HEADERS };
  if (body) headers['content-type'] = body.type;
  if (body || method === 'POST') headers['content-length'] = String(body?.bytes.length ?? 0);
  return new Promise((resolve, reject) => {
    const req = request(
      { hostname: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body?.bytes);
  });
}

const api = (path: string, query = '') => `${server.baseUrl}${path}?api_key=${KEY}${query}`;
const json = <T>(a: Answer): T => parseJson<T>(a.body);

/** `json=` of requests: Python's json.dumps, with its `, ` and `: ` separators. */
function pyJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pyJson).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pyJson(v)}`)
      .join(', ')}}`;
  return JSON.stringify(value);
}
const jsonBody = (value: unknown) => ({ type: 'application/json', bytes: Buffer.from(pyJson(value)) });

/** requests-toolbelt's MultipartEncoder: a uuid4-hex boundary, each field as `(filename, bytes, type)` or text. */
function multipart(fields: [string, string | { filename: string; type: string; bytes: Buffer }][]) {
  const boundary = randomBytes(16).toString('hex');
  const parts = fields.flatMap(([name, value]) =>
    typeof value === 'string'
      ? [Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)]
      : [
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${value.filename}"\r\nContent-Type: ${value.type}\r\n\r\n`,
          ),
          value.bytes,
          Buffer.from('\r\n'),
        ],
  );
  return { type: `multipart/form-data; boundary=${boundary}`, bytes: Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]) };
}
/** InferenceModel.__get_image_params: the image as JPEG, one part `file` named `imageToUpload`. */
const imagePart = (bytes: Buffer) => multipart([['file', { filename: 'imageToUpload', type: 'image/jpeg', bytes }]]);

/** The query of TrainedModel.predict (InferenceModel.predict: api_key first, then its defaults). */
const PREDICT_QUERY = 'confidence=40&overlap=30&format=json';
const predictUrl = (model: string, query: string) => `${server.inferenceUrl}/${model}?${query}`;

/** What Prediction.save reads: an 8-bit single-channel mask of the image's size, from the flat payload. */
function expectSavable(payload: SegmentationPayload, width: number, height: number) {
  const mask = decodeMaskPng(Buffer.from(payload.segmentation_mask, 'base64'));
  expect([mask.width, mask.height, payload.image.width, payload.image.height]).toEqual([width, height, width, height]);
  expect(payload.class_map['0']).toBe('background');
}

describe("Roboflow's Python SDK, replayed", () => {
  test('key check (check_key): POST / with the key and no body; the SDK reads `workspace`, and raises the text of a 401', async () => {
    const ok = await send('POST', api('/'));
    expect(ok.status).toBe(200);
    expect(json<{ workspace: string }>(ok).workspace).toBe(WS);
    const refused = await send('POST', `${server.baseUrl}/?api_key=wrong-key-abc`);
    expect(refused.status).toBe(401);
    expect(json<ErrorAnswer>(refused).error).toMatchObject({
      code: 'OAuthException',
      message: 'This API key does not exist (or has been revoked).',
    });
  });

  test('workspace (rfapi.get_workspace): name, url, members, and each project with the fields Project() reads', async () => {
    const answer = await send('GET', api(`/${WS}`));
    expect(answer.status).toBe(200);
    const { workspace } = json<{ workspace: { name: string; url: string; members: number; projects: Record<string, unknown>[] } }>(answer);
    expect([workspace.url, typeof workspace.name, workspace.members]).toEqual([WS, 'string', 1]);
    expect(workspace.projects.map((p) => p.id)).toEqual([`${WS}/${PROJECT}`, `${WS}/people`]);
    for (const p of workspace.projects) {
      for (const field of [
        'annotation',
        'classes',
        'colors',
        'created',
        'id',
        'images',
        'name',
        'public',
        'splits',
        'type',
        'unannotated',
        'updated',
      ])
        expect(p, field).toHaveProperty(field);
      // datetime.fromtimestamp(created), and id.rsplit("/") into workspace and project.
      expect([typeof p.created, typeof p.updated, String(p.id).split('/').length]).toEqual(['number', 'number', 2]);
    }
  });

  test('project and versions (rfapi.get_project, Project.get_version_information): the fields Version() reads; `model` truthy only where trained', async () => {
    const answer = await send('GET', api(`/${WS}/${PROJECT}`));
    expect(answer.status).toBe(200);
    const { project, versions } = json<{ project: { type: string; images: number }; versions: Record<string, unknown>[] }>(answer);
    expect([project.type, project.images]).toEqual(['semantic-segmentation', manifest.images.length]);
    for (const v of versions)
      for (const field of ['augmentation', 'created', 'id', 'images', 'preprocessing', 'splits', 'exports'])
        expect(v, field).toHaveProperty(field);
    // project.version(n) matches os.path.basename(id) against str(n); Version() makes a model where bool(model).
    expect(versions.map((v) => String(v.id).split('/').pop())).toEqual(['1', '2']);
    expect(versions.map((v) => Object.keys(v.model as object).length > 0)).toEqual([false, true]);
    const missing = await send('GET', api(`/${WS}/nope`));
    expect([missing.status, json<ErrorAnswer>(missing).error.code]).toEqual([404, 'NotFound']);
  });

  test('before an export or a training (Version.__check_if_generating): GET the version with nocache=true; not generating, with images', async () => {
    for (const [project, version] of [
      [PROJECT, 1],
      [PROJECT, 2],
      ['people', 1],
      ['people', 2],
    ] as const) {
      const answer = await send('GET', api(`/${WS}/${project}/${version}`, '&nocache=true'));
      expect(answer.status).toBe(200);
      // The SDK waits, five seconds at a time, while `generating or images == 0`.
      const v = json<{ version: { generating: boolean; progress: number; images: number } }>(answer).version;
      expect([v.generating, v.progress, v.images > 0]).toEqual([false, 1, true]);
    }
  });

  test('version.trainings() and version.models(): GET …/v2/trainings, then …/v2/trainings/get?trainingId=…', async () => {
    const list = await send('GET', api(`/${WS}/${PROJECT}/2/v2/trainings`));
    expect(list.status).toBe(200);
    const { trainings } = json<{ trainings: { trainingId: string; status: string; modelType: string; modelIds: string[] }[] }>(list);
    expect(trainings).toEqual([
      {
        trainingId: 'shapes-2',
        status: 'finished',
        modelType: 'edgeseg-shapes-sem',
        modelIds: ['shapes/2'],
        start: expect.any(Number) as number,
      },
    ]);
    // The quote(training_id, safe='') the SDK applies leaves this id as it is.
    const get = await send('GET', api(`/${WS}/${PROJECT}/2/v2/trainings/get`, `&trainingId=${trainings[0]!.trainingId}`));
    expect(get.status).toBe(200);
    const bundle = json<{ modelType: string; models: { modelId: string; modelType: string }[] }>(get);
    expect(bundle.models).toEqual([{ modelId: 'shapes/2', modelType: 'edgeseg-shapes-sem' }]);
    // task_of_model_type: "sem" in the type sends predictions to SEMANTIC_SEGMENTATION_URL/{modelId} and reads
    // the answer as a semantic-segmentation payload (any other type goes to the object-detection host).
    expect(bundle.modelType.toLowerCase()).toContain('sem');
    expect(json<{ trainingId: string }>(await send('GET', api(`/${WS}/${PROJECT}/2/v2/trainings/get`))).trainingId).toBe('shapes-2');
    const people = json<{ trainings: { modelType: string; modelIds: string[] }[] }>(await send('GET', api(`/${WS}/people/1/v2/trainings`)));
    expect(people.trainings.map((t) => [t.modelType, t.modelIds])).toEqual([['mediapipe-selfie-segmentation-sem', ['people/1']]]);
    // A version without a model has no training: models() is [].
    expect(json<{ trainings: unknown[] }>(await send('GET', api(`/${WS}/${PROJECT}/1/v2/trainings`))).trainings).toEqual([]);
    for (const [path, query] of [
      [`/${WS}/${PROJECT}/1/v2/trainings/get`, ''],
      [`/${WS}/${PROJECT}/2/v2/trainings/get`, '&trainingId=other'],
    ] as const) {
      const missing = await send('GET', api(path, query));
      expect([missing.status, json<ErrorAnswer>(missing).error.code]).toEqual([404, 'NotFound']);
    }
  });

  test('export() and download() (rfapi.get_version_export): GET …/{format}?nocache=true, then the link, streamed', async () => {
    const answer = await send('GET', api(`/${WS}/${PROJECT}/2/png-mask-semantic`, '&nocache=true'));
    expect(answer.status).toBe(200);
    const { link } = json<{ export: { link: string } }>(answer).export;
    const zip = await send('GET', link);
    expect([zip.status, zip.headers['content-type']]).toEqual([200, 'application/zip']);
    const names = Object.keys(unzipSync(zip.body));
    expect(names).toContain('train/_classes.csv');
    expect(names.filter((n) => n.endsWith('_mask.png'))).toHaveLength(manifest.images.length);
    // A format the local platform does not build: RoboflowError(response.text), the reason in it.
    const refused = await send('GET', api(`/${WS}/${PROJECT}/2/yolov8`, '&nocache=true'));
    expect(refused.status).toBe(400);
    expect(json<ErrorAnswer>(refused).error.hint).toBe('formats: png-mask-semantic, coco-segmentation');
  });

  // Project.search builds its payload in this order, leaving out what is None; offset, limit, batch and fields
  // are always there.
  const searchBody = (filters: Record<string, unknown>, fields = ['id', 'created', 'name', 'labels'], offset = 0, limit = 100) => {
    const { like_image, prompt, tag, class_name, in_dataset, batch = false, batch_id, annotation_job, annotation_job_id } = filters;
    const body = {
      like_image,
      prompt,
      offset,
      limit,
      tag,
      class_name,
      in_dataset,
      batch,
      batch_id,
      annotation_job,
      annotation_job_id,
      fields,
    };
    return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
  };
  const search = async (body: Record<string, unknown>) => {
    const answer = await send('POST', api(`/${WS}/${PROJECT}/search`), jsonBody(body));
    expect(answer.status, answer.body.toString()).toBe(200);
    // The SDK returns data.json()["results"].
    return json<{ results: Record<string, unknown>[] }>(answer).results;
  };
  const ids = (results: Record<string, unknown>[]) => results.map((r) => r.id as string).sort();
  const expected = (keep: (i: (typeof manifest.images)[number]) => boolean) =>
    manifest.images
      .filter(keep)
      .map((i) => i.id)
      .sort();

  test('search() with its defaults: `batch: false` is no batch filter', async () => {
    const body = searchBody({});
    expect(pyJson(body)).toBe('{"offset": 0, "limit": 100, "batch": false, "fields": ["id", "created", "name", "labels"]}');
    const results = await search(body);
    expect(ids(results)).toEqual(expected(() => true));
    expect(Object.keys(results[0]!)).toEqual(['id', 'created', 'name', 'labels']);
  });

  test('search() with each filter it takes', async () => {
    const cases: [Record<string, unknown>, (i: (typeof manifest.images)[number]) => boolean][] = [
      [{ tag: 'crowded' }, (i) => i.tags.includes('crowded')],
      [{ class_name: 'triangle' }, (i) => i.tags.includes('triangle')],
      [{ in_dataset: 'valid' }, (i) => i.split === 'valid'],
      [{ batch: true }, () => true],
      [{ batch_id: 'field-test' }, (i) => i.batch === 'field-test'],
      [{ prompt: 'star', tag: 'star', class_name: 'circle' }, (i) => i.tags.includes('star') && i.tags.includes('circle')],
      [{ annotation_job: false }, () => true],
      // The local platform has no annotation jobs.
      [{ annotation_job: true }, () => false],
      [{ annotation_job_id: 'job-1' }, () => false],
    ];
    for (const [filters, keep] of cases) expect(ids(await search(searchBody(filters))), JSON.stringify(filters)).toEqual(expected(keep));
    const byPrompt = await search(searchBody({ prompt: 'star' }, undefined, 0, 5));
    expect(byPrompt).toHaveLength(5);
    expect(manifest.images.find((i) => i.id === byPrompt[0]!.id)!.tags).toContain('star');
    const alike = await search(searchBody({ like_image: sample.id }, undefined, 0, 3));
    expect(alike[0]!.id).toBe(sample.id);
  });

  test('search() fields: every field the SDK documents, `user_metadata` included', async () => {
    const fields = ['id', 'name', 'created', 'annotations', 'labels', 'split', 'tags', 'owner', 'embedding', 'user_metadata'];
    const [result] = await search(searchBody({}, fields, 0, 1));
    expect(Object.keys(result!)).toEqual(fields);
    expect(result!.user_metadata).toEqual({});
  });

  test('search_all(): pages of `limit` (fields id, created) until a page comes back short', async () => {
    const pages: number[] = [];
    const seen: string[] = [];
    for (let offset = 0; ; offset += 25) {
      const page = await search(searchBody({ tag: undefined }, ['id', 'created'], offset, 25));
      pages.push(page.length);
      seen.push(...page.map((r) => r.id as string));
      expect(Object.keys(page[0]!)).toEqual(['id', 'created']);
      if (page.length < 25) break;
    }
    expect(pages).toEqual([25, 25, 22]);
    expect(seen.sort()).toEqual(expected(() => true));
  });

  test('project.image(id): the record and its signed URL; an unknown id answers `error`, which the SDK raises', async () => {
    const answer = await send('GET', api(`/${WS}/${PROJECT}/images/${sample.id}`));
    const { image } = json<{ image: { id: string; urls: { original: string } } }>(answer);
    expect(image.id).toBe(sample.id);
    expect((await send('GET', image.urls.original)).body.equals(await readFile(join(SAMPLES, sample.file)))).toBe(true);
    const missing = await send('GET', api(`/${WS}/${PROJECT}/images/nope`));
    expect([missing.status, Object.keys(json<object>(missing))]).toEqual([404, ['error']]);
  });

  test('predict on a local file (TrainedModel.predict): the JPEG as the multipart `file` part, confidence 40, overlap 30, format json', async () => {
    const bytes = await readFile(join(SAMPLES, sample.file));
    const answer = await send('POST', predictUrl(`${PROJECT}/2`, `api_key=${KEY}&${PREDICT_QUERY}`), imagePart(bytes));
    expect(answer.status, answer.body.toString()).toBe(200);
    const payload = json<SegmentationPayload>(answer);
    expect(payload).toEqual(await reference.segment(bytes, { confidence: 40 }));
    expectSavable(payload, sample.width, sample.height);
  });

  test('predict on a numpy array: the array as a JPEG of quality 90, the same form (and version.model.predict: confidence 50 only)', async () => {
    const bytes = await sharp(await readFile(join(SAMPLES, sample.file)))
      .jpeg({ quality: 90 })
      .toBuffer();
    const answer = await send('POST', predictUrl(`${PROJECT}/2`, `api_key=${KEY}&confidence=50`), imagePart(bytes));
    expect(answer.status, answer.body.toString()).toBe(200);
    expect(json<SegmentationPayload>(answer)).toEqual(await reference.segment(bytes, { confidence: 50 }));
  });

  test('predict on a platform image URL: HEAD first (check_image_url), then POST ?image=…, and .save() GETs the image', async () => {
    const { image } = json<{ image: { urls: { original: string } } }>(await send('GET', api(`/${WS}/${PROJECT}/images/${sample.id}`)));
    const url = image.urls.original;
    const head = await send('HEAD', url);
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    const got = await send('GET', url);
    expect(head.headers['content-length']).toBe(String(got.body.length));
    const query = new URLSearchParams({ image: url, api_key: KEY, confidence: '40', overlap: '30', format: 'json' });
    const answer = await send('POST', predictUrl(`${PROJECT}/2`, query.toString()));
    expect(answer.status, answer.body.toString()).toBe(200);
    const payload = json<SegmentationPayload>(answer);
    expect(payload).toEqual(await reference.segment(got.body, { confidence: 40 }));
    expectSavable(payload, sample.width, sample.height);
  });

  test('predict on any URL: HEAD to its host, then POST ?image=…', async () => {
    const other = manifest.images[3]!;
    const url = `${files.url}/${other.file}`;
    expect((await send('HEAD', url)).status).toBe(200);
    const query = new URLSearchParams({ image: url, api_key: KEY, confidence: '40', overlap: '30', format: 'json' });
    const answer = await send('POST', predictUrl(`${PROJECT}/2`, query.toString()));
    expect(answer.status, answer.body.toString()).toBe(200);
    const payload = json<SegmentationPayload>(answer);
    expect(payload).toEqual(await reference.segment(await readFile(join(SAMPLES, other.file)), { confidence: 40 }));
    expectSavable(payload, other.width, other.height);
  });

  test("the seed's form is still taken: a base64 body, with or without a data: prefix, gives the multipart form's payload", async () => {
    const bytes = await readFile(join(SAMPLES, sample.file));
    const want = await reference.segment(bytes, { confidence: 50 });
    for (const text of [bytes.toString('base64'), `data:image/jpeg;base64,${bytes.toString('base64')}`]) {
      const answer = await send('POST', predictUrl(`${PROJECT}/2`, `api_key=${KEY}`), {
        type: 'application/x-www-form-urlencoded',
        bytes: Buffer.from(text),
      });
      expect(json<SegmentationPayload>(answer)).toEqual(want);
    }
  });

  test('what the local platform does not have (uploads, new projects and versions, training, weights, workspace search): 501 NotAvailableLocally', async () => {
    const jpeg = await readFile(join(SAMPLES, sample.file));
    const cases: [string, string, { type: string; bytes: Buffer } | undefined, string][] = [
      // rfapi.upload_image, a local file and a hosted one.
      [
        'POST',
        api(`/dataset/${PROJECT}/upload`, '&batch=Pip+Package+Upload'),
        multipart([
          ['name', 'a.jpg'],
          ['split', 'train'],
          ['file', { filename: 'a.jpg', type: 'image/jpeg', bytes: jpeg }],
        ]),
        'uploading images',
      ],
      [
        'POST',
        api(
          `/dataset/${PROJECT}/upload`,
          `&name=a.jpg&split=train&image=${encodeURIComponent(`${files.url}/a.jpg`)}&batch=Pip+Package+Upload`,
        ),
        undefined,
        'uploading images',
      ],
      [
        'POST',
        api(`/dataset/${PROJECT}/annotate/${sample.id}`, '&name=a.json&jobName=Annotated+via+API'),
        jsonBody({ annotationFile: '{}', labelmap: null }),
        'uploading annotations',
      ],
      [
        'POST',
        api(`/${WS}/projects`),
        jsonBody({ name: 'x', type: 'semantic-segmentation', license: 'MIT', annotation: 'x' }),
        'creating projects',
      ],
      ['POST', api(`/${WS}/${PROJECT}/generate`), jsonBody({ augmentation: {}, preprocessing: {} }), 'generating versions'],
      ['POST', api(`/${WS}/${PROJECT}/2/train`, '&nocache=true'), jsonBody({ modelType: 'deeplab-v3-plus' }), 'training'],
      ['POST', api(`/${WS}/${PROJECT}/2/v2/trainings`), jsonBody({}), 'training'],
      ['GET', api(`/${WS}/${PROJECT}/2/ptFile`), undefined, 'downloading PyTorch weights'],
      ['POST', api(`/${WS}/search/v1`), jsonBody({ query: 'tag:star', pageSize: 50 }), 'searching a whole workspace'],
    ];
    for (const [method, url, body, what] of cases) {
      const answer = await send(method, url, body);
      expect([answer.status, json<ErrorAnswer>(answer).error], `${method} ${url}`).toEqual([
        501,
        {
          message: `${what} is not available on the local platform`,
          type: 'NotAvailableLocally',
          code: 'NotAvailableLocally',
          hint: expect.any(String) as string,
        },
      ]);
    }
    // The key is still checked first.
    expect((await send('POST', `${server.baseUrl}/dataset/${PROJECT}/upload?api_key=wrong`)).status).toBe(401);
  });
});

describe('HTTP as clients expect it', () => {
  test('HEAD is answered wherever GET is: the same status and headers, no body', async () => {
    const { image } = json<{ image: { urls: { original: string } } }>(await send('GET', api(`/${WS}/${PROJECT}/images/${sample.id}`)));
    const exportLink = json<{ export: { link: string } }>(await send('GET', api(`/${WS}/${PROJECT}/2/coco-segmentation`))).export.link;
    const { ort } = json<{ ort: { model: string } }>(await send('GET', api(`/ort/${PROJECT}/2`)));
    const urls = [
      api('/'),
      api(`/${WS}`),
      api(`/${WS}/${PROJECT}/2`),
      api(`/${WS}/${PROJECT}/2/v2/trainings`),
      image.urls.original,
      exportLink,
      ort.model,
      // Refusals too: a missing project, a wrong key, a path with no route, a route that takes POST only.
      api(`/${WS}/nope`),
      `${server.baseUrl}/${WS}?api_key=wrong`,
      `${server.baseUrl}/nothing/here/at/all/x`,
      api(`/infer/${PROJECT}/2`),
      `${image.urls.original.split('?')[0]}?expires=1&sig=00`,
    ];
    const without = (h: IncomingHttpHeaders) => Object.fromEntries(Object.entries(h).filter(([k]) => k !== 'date'));
    for (const url of urls) {
      const [get, head] = [await send('GET', url), await send('HEAD', url)];
      expect([head.status, without(head.headers), head.body.length], url).toEqual([get.status, without(get.headers), 0]);
    }
    expect((await send('HEAD', api(`/infer/${PROJECT}/2`))).status).toBe(405);
  });

  test('a multipart body the server cannot take is a coded 4xx, and the server keeps serving', async () => {
    const jpeg = await readFile(join(SAMPLES, sample.file));
    const file = (bytes: Buffer) => ({ filename: 'imageToUpload', type: 'image/jpeg', bytes });
    const good = imagePart(jpeg);
    const cases: [string, { type: string; bytes: Buffer }, number, string, string?][] = [
      ['no `file` part', multipart([['image', file(jpeg)]]), 400, 'ValidationError', 'file'],
      [
        'two files',
        multipart([
          ['file', file(jpeg)],
          ['file', file(jpeg)],
        ]),
        400,
        'ValidationError',
        'file',
      ],
      ['an empty file', multipart([['file', file(Buffer.alloc(0))]]), 400, 'ValidationError', 'file'],
      [
        'a part that is not an image',
        multipart([['file', { filename: 'notes.txt', type: 'text/plain', bytes: Buffer.from('not an image') }]]),
        400,
        'IMAGE_FORMAT_UNSUPPORTED',
      ],
      ['a part over the image limit', multipart([['file', file(Buffer.alloc(20_000_001))]]), 413, 'PayloadTooLarge'],
      ['no closing boundary', { type: good.type, bytes: good.bytes.subarray(0, good.bytes.length - 40) }, 400, 'MalformedMultipart'],
      ['no boundary parameter', { type: 'multipart/form-data', bytes: good.bytes }, 400, 'MalformedMultipart'],
    ];
    for (const [name, body, status, code, field] of cases) {
      const answer = await send('POST', predictUrl(`${PROJECT}/2`, `api_key=${KEY}&confidence=50`), body);
      const { error } = json<ErrorAnswer>(answer);
      expect([answer.status, error.code, error.field], name).toEqual([status, code, field]);
    }
    // A body over the route's limit is refused as it arrives.
    const huge = multipart([['file', file(Buffer.alloc(28_001_100))]]);
    expect((await send('POST', predictUrl(`${PROJECT}/2`, `api_key=${KEY}`), huge)).status).toBe(413);
    const answer = await send('POST', predictUrl(`${PROJECT}/2`, `api_key=${KEY}&confidence=50`), good);
    expect(json<SegmentationPayload>(answer)).toEqual(await reference.segment(jpeg, { confidence: 50 }));
    expect(server.handler.bodies.held.bytes).toBe(0);
  });

  test('search `batch` and `annotation_job` of another type: a 400 naming the field', async () => {
    for (const [field, value] of [
      ['batch', 'false'],
      ['batch', 0],
      ['annotation_job', 'yes'],
      ['annotation_job_id', 5],
    ] as const) {
      const answer = await send('POST', api(`/${WS}/${PROJECT}/search`), jsonBody({ [field]: value }));
      expect([answer.status, json<ErrorAnswer>(answer).error.field]).toEqual([400, field]);
    }
  });
});

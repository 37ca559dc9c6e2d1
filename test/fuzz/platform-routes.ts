// Random requests for the local platform's routes (fast-check arbitraries), the properties every answer
// must have, and a server in a child process whose heap can be measured after GC. Shared by the bounded
// test (test/e2e/platform-fuzz.test.ts) and the soak (`npm run fuzz:routes`).
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent } from 'node:http';
import { join } from 'node:path';
import fc from 'fast-check';
import { ROOT, TINY } from '../helpers/paths.js';
import { rawHttp, type RawAnswer, type RawRequest } from '../helpers/raw-http.js';

export interface FuzzTarget {
  base: string;
  apiKey: string;
  /** Strings no answer may contain: the key, the signing secret. */
  secrets: string[];
}

const WS = 'edgeseg-demo';
const PROJECT = 'shapes';
const SEGMENTS = [
  WS,
  PROJECT,
  'other',
  'search',
  'images',
  'settings',
  'infer',
  'ort',
  'model-files',
  'image-files',
  'exports',
  'synthetic-image',
  'local-key',
  'dataset',
  'upload',
  'train',
  'v2',
  'trainings',
  'get',
  '1',
  '2',
  '0',
  '99',
  '-1',
  '1e30',
  '9007199254740993',
  'png-mask-semantic',
  'coco-segmentation',
  'weights.onnx',
  'environment.json',
  'signed.1.00',
  '..',
  '.',
  '%2e%2e',
  '%2F',
  '%00',
  '%ff',
  '%',
  'latest',
  'sample-000',
];
const FIELDS = [
  'prompt',
  'like_image',
  'tag',
  'class_name',
  'in_dataset',
  'batch',
  'batch_id',
  'annotation_job',
  'annotation_job_id',
  'fields',
  'offset',
  'limit',
  'image',
  'image_type',
  'project_url',
  'model',
  'style',
  'size',
  'quality',
  'n',
  'force_caption_regenerate',
  'unmodified_prompt',
  'providerBaseUrl',
  'captionModel',
];
const PARAMS = ['confidence', 'image', 'expires', 'sig', 'offset', 'limit', 'format', 'api_key', 'trainingId', 'nocache'];
const NUMBERS = [
  '0',
  '-0',
  '1',
  '50',
  '100',
  '101',
  '-1',
  '1.5',
  '1e30',
  '1e400',
  '-1e400',
  'NaN',
  'Infinity',
  '0x10',
  '9007199254740993',
  '',
  ' 5',
  '5abc',
];

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(...SEGMENTS),
  fc.constantFrom(...NUMBERS),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);
const jsonValue = fc.oneof(
  { depthSize: 'small' },
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(...NUMBERS.filter((n) => n !== '' && !/[a-zN ]/.test(n)).map(Number)),
  fc.array(fc.constantFrom('id', 'name', 'created', 'embedding', 'user_metadata', 'image_url', 'score', 'password', ''), { maxLength: 5 }),
);

/** A request a careless or hostile client could send; `target` gives the real key and addresses. */
export function requestArbitrary(target: FuzzTarget): fc.Arbitrary<RawRequest> {
  const { host, port } = new URL(target.base);
  const segment = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...SEGMENTS) }, { weight: 1, arbitrary: text.map(encodeURIComponent) });
  const path = fc
    .tuple(fc.array(segment, { maxLength: 6 }), fc.boolean())
    .map(([parts, slash]) => `/${parts.join('/')}${slash ? '/' : ''}`);
  const imageUrl = fc.constantFrom(
    `${target.base}/`,
    `${target.base}/image-files/${WS}/${PROJECT}/x`,
    'http://127.0.0.1:1/x.png',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'ftp://127.0.0.1/x',
    'data:image/png;base64,AAAA',
    'http://',
    '//x',
  );
  const param = fc.oneof(
    fc.tuple(fc.constantFrom(...PARAMS), fc.oneof(text, fc.constantFrom(...NUMBERS))),
    fc.tuple(fc.constant('image'), imageUrl),
    fc.tuple(text, text),
  );
  const key = fc.constantFrom<string | null>(target.apiKey, target.apiKey, target.apiKey, 'wrong-key', '', null);
  const query = fc.tuple(key, fc.array(param, { maxLength: 4 })).map(([k, ps]) => {
    const q = new URLSearchParams(ps);
    if (k !== null) q.append('api_key', k);
    const s = q.toString();
    return s ? `?${s}` : '';
  });
  const objectBody = fc
    .dictionary(fc.oneof(fc.constantFrom(...FIELDS), fc.string({ maxLength: 10 })), jsonValue, { maxKeys: 6 })
    .map((o) => JSON.stringify(o));
  const body = fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 5, arbitrary: objectBody },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 2000 }).map((b) => Buffer.from(b)) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 3000 }).map((b) => Buffer.from(b).toString('base64')) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 50_000 }).map((n) => `{"tag": ${'['.repeat(n)}${']'.repeat(n)}}`) },
    { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v) ?? '') },
    // multipart/form-data with the boundary `x` (the content type below names it): parts named `file` or not,
    // with a file name or not, bytes or a PNG's signature, cut short or closed.
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.array(
            fc.tuple(
              fc.constantFrom('file', 'other', ''),
              fc.boolean(),
              fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.constant(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))),
            ),
            { maxLength: 3 },
          ),
          fc.boolean(),
        )
        .map(([parts, closed]) =>
          Buffer.concat([
            ...parts.flatMap(([name, named, bytes]) => [
              Buffer.from(`--x\r\nContent-Disposition: form-data; name="${name}"${named ? '; filename="a.png"' : ''}\r\n\r\n`),
              Buffer.from(bytes),
              Buffer.from('\r\n'),
            ]),
            Buffer.from(closed ? '--x--\r\n' : ''),
          ]),
        ),
    },
  );
  const method = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD') },
    { weight: 1, arbitrary: fc.stringMatching(/^[A-Z]{3,8}$/) },
  );
  const headerValue = fc.stringMatching(/^[\x20-\x7e]{0,60}$/).map((v) => v.trim());
  const headers = fc.record(
    {
      host: fc.constantFrom(host, host, host, `localhost:${port}`, 'attacker.example', `0.0.0.0:${port}`, '', `[::1]:${port}`),
      origin: fc.constantFrom('http://localhost:3000', 'https://attacker.example', 'null', 'http://127.0.0.1', 'garbage'),
      'content-type': fc.constantFrom(
        'application/json',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
      ),
      'sec-fetch-site': fc.constantFrom('same-origin', 'cross-site', 'none'),
      'x-fuzz': headerValue,
    },
    { requiredKeys: [] },
  );
  return fc.record(
    { method, path: fc.tuple(path, query).map(([p, q]) => p + q), headers, body },
    { requiredKeys: ['method', 'path', 'headers'] },
  );
}

/**
 * The 5xx answers that are not the server failing: upstream failures that are the gateway's to report (an image
 * URL that timed out), and the platform's routes for what the local platform does not have.
 */
const UPSTREAM = new Map([
  [504, 'ImageFetchTimeout'],
  [501, 'NotAvailableLocally'],
]);
const STACK = /\n\s+at |node:internal|\.[cm]?[jt]s:\d+:\d+/;

/** What is wrong with an answer: empty when it has every property. */
export function answerProblems(request: RawRequest, answer: RawAnswer, target: FuzzTarget): string[] {
  const problems: string[] = [];
  let code: unknown;
  if (answer.status >= 400 && request.method !== 'HEAD') {
    try {
      code = (JSON.parse(answer.body) as { error?: { code?: unknown } }).error?.code;
    } catch {
      problems.push(`a ${answer.status} whose body is not JSON: ${answer.body.slice(0, 100)}`);
    }
    if (typeof code !== 'string' || code === '') problems.push(`a ${answer.status} without an error code: ${answer.body.slice(0, 200)}`);
  }
  // A HEAD answer has no body to read a code from: its status alone must be one of them.
  const expected = UPSTREAM.get(answer.status);
  if (answer.status >= 500 && (expected === undefined || (request.method !== 'HEAD' && expected !== code)))
    problems.push(`a ${answer.status}: ${answer.body.slice(0, 300)}`);
  if (STACK.test(answer.body)) problems.push(`a stack trace or source path: ${answer.body.slice(0, 300)}`);
  for (const secret of target.secrets)
    if (answer.body.includes(secret) || JSON.stringify(answer.headers).includes(secret)) problems.push('a secret in the answer');
  return problems;
}

/** Sends the requests, `concurrency` at a time, over a keep-alive agent; returns the problems found. */
export async function sendAll(target: FuzzTarget, requests: RawRequest[], concurrency = 8): Promise<string[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const problems: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const request = requests[next++]!;
      try {
        const answer = await rawHttp(target.base, { ...request, agent });
        problems.push(...answerProblems(request, answer, target).map((p) => `${request.method} ${request.path.slice(0, 80)}: ${p}`));
      } catch (error) {
        // The client refusing to send it (a header it thinks malformed) is not the server's answer.
        if ((error as NodeJS.ErrnoException).code?.startsWith('ERR_')) continue;
        problems.push(`${request.method} ${request.path.slice(0, 80)}: no answer (${(error as Error).message})`);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();
  return problems;
}

export interface MemoryServer extends FuzzTarget {
  /** heapUsed after two full GCs, in bytes. */
  heap(): Promise<number>;
  close(): Promise<void>;
}

/**
 * The platform (the built one, dist/) in a child Node with --expose-gc, on a fresh data directory, so that
 * its heap is its own and can be measured after a full GC.
 */
export async function startMemoryServer(dataDir: string): Promise<MemoryServer> {
  const script = `
    const { startPlatformServer } = await import(${JSON.stringify(join(ROOT, 'dist', 'server', 'start.js'))});
    const { readFile } = await import('node:fs/promises');
    const server = await startPlatformServer({ port: 0, dataDir: ${JSON.stringify(dataDir)}, modelDir: ${JSON.stringify(TINY('tiny-legacy'))}, limits: { fetchTimeoutMs: 300 } });
    const secret = (await readFile(${JSON.stringify(join(dataDir, 'signing-key'))}, 'utf8')).trim();
    process.send({ base: server.baseUrl, apiKey: server.apiKey, secret });
    process.on('message', (m) => {
      if (m !== 'heap') return server.close().then(() => process.exit(0));
      globalThis.gc(); globalThis.gc();
      process.send({ heap: process.memoryUsage().heapUsed });
    });
  `;
  const child: ChildProcess = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <T>() =>
    new Promise<T>((resolve, reject) => {
      child.once('message', (m) => resolve(m as T));
      child.once('exit', (code) => reject(new Error(`the platform child exited (${code})`)));
    });
  const { base, apiKey, secret } = await next<{ base: string; apiKey: string; secret: string }>();
  return {
    base,
    apiKey,
    secrets: [apiKey, secret],
    heap: async () => {
      const answer = next<{ heap: number }>();
      child.send('heap');
      return (await answer).heap;
    },
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send('close');
      await exited;
    },
  };
}

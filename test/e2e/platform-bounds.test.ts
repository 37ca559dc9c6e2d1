// What one request, or a burst of them, may cost the local platform in memory: an image provider that
// answers 700 MB, and legal images that are tiny on the wire and huge decoded. The server's memory is this
// process's (it runs in it), sampled while the requests run.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startPlatformServer, type PlatformServer } from '../../server/index.js';
import { parseJson, type ErrorAnswer } from '../helpers/json.js';
import { TINY } from '../helpers/paths.js';
import { rawHttp } from '../helpers/raw-http.js';

const WS = 'edgeseg-demo';
const MB = 2 ** 20;

let dir: string;
let server: PlatformServer;
let provider: Server;
let providerUrl: string;
/** Bytes the provider managed to send of its last answer. */
let providerSent = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'edgeseg-bounds-'));
  // A provider whose image generation answers 700 MB of JSON (an endless base64 string), at the pace the
  // reader takes it.
  provider = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"data":[{"b64_json":"');
    const chunk = Buffer.alloc(MB, 'A');
    providerSent = 0;
    const pump = () => {
      while (providerSent < 700 * MB && !res.destroyed) {
        providerSent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end('"}]}');
    };
    pump();
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  providerUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`;
  server = await startPlatformServer({
    port: 0,
    dataDir: join(dir, 'data'),
    modelDir: TINY('tiny-legacy'),
    // One request waits for its turn, so that a burst of four is one running, one waiting and two refused.
    limits: { maxDecodesWaiting: 1 },
  });
});

afterAll(async () => {
  await server?.close();
  provider?.closeAllConnections();
  await new Promise<void>((resolve) => (provider ? provider.close(() => resolve()) : resolve()));
  await rm(dir, { recursive: true, force: true });
});

const withKey = (path: string) => `${path}${path.includes('?') ? '&' : '?'}api_key=${server.apiKey}`;

/** The peak resident memory above the start while `work` runs, sampled every 10 ms. */
async function peakGrowth<T>(work: () => Promise<T>): Promise<{ result: T; growthMb: number }> {
  globalThis.gc?.();
  const start = process.memoryUsage.rss();
  let peak = start;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 10);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { result, growthMb: (peak - start) / MB };
  } finally {
    clearInterval(sampler);
  }
}

describe('memory', () => {
  test("a provider that answers 700 MB: cut off at 20 MB as it streams in (502 ProviderError), the server's memory barely moves", async () => {
    const put = await rawHttp(server.baseUrl, {
      method: 'PUT',
      path: withKey(`/${WS}/settings`),
      body: JSON.stringify({ providerApiKey: 'sk-test', providerBaseUrl: providerUrl }),
    });
    expect(put.status).toBe(200);
    const { result, growthMb } = await peakGrowth(() =>
      rawHttp(server.baseUrl, {
        method: 'POST',
        path: withKey('/synthetic-image'),
        body: JSON.stringify({ prompt: 'anything', unmodified_prompt: true, project_url: 'shapes' }),
      }),
    );
    expect(result.status).toBe(502);
    const { error } = parseJson<ErrorAnswer>(result.body);
    expect(error.code).toBe('ProviderError');
    expect(error.message).toBe("the image provider's answer is over the limit of 20000000 bytes");
    // Read whole, the answer took the server from 485 MB to 1.82 GB.
    console.log(`700 MB provider answer: peak memory growth ${growthMb.toFixed(0)} MB, provider sent ${(providerSent / MB).toFixed(0)} MB`);
    expect(growthMb).toBeLessThan(200);
    expect(providerSent).toBeLessThan(700 * MB);
    expect((await rawHttp(server.baseUrl, { path: withKey(`/${WS}`) })).status).toBe(200);
  });

  test('a burst of huge legal images (1,970-byte WebPs of 16383×3050): one decodes at a time, one waits, the rest are 503 with Retry-After; memory stays that of one', async () => {
    const webp = await sharp({ create: { width: 16383, height: 3050, channels: 3, background: '#204080' } })
      .webp({ lossless: true })
      .toBuffer();
    expect(webp.length).toBeLessThan(4096);
    const body = webp.toString('base64');
    const infer = () => rawHttp(server.baseUrl, { method: 'POST', path: withKey('/infer/shapes/2'), body });
    let answeredMeanwhile: number | null = null;
    let firstDone: number | null = null;
    let events = 0;
    const { result: answers, growthMb } = await peakGrowth(async () => {
      const burst = [0, 1, 2, 3].map(() =>
        infer().then((answer) => {
          if (answer.status === 200) firstDone ??= ++events;
          return answer;
        }),
      );
      // While they run, the other routes answer.
      const other = await rawHttp(server.baseUrl, { path: withKey(`/${WS}`) });
      expect(other.status).toBe(200);
      answeredMeanwhile = ++events;
      return Promise.all(burst);
    });
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 200, 503, 503]);
    for (const refused of answers.filter((a) => a.status === 503)) {
      expect(parseJson<ErrorAnswer>(refused.body).error.code).toBe('ServerBusy');
      expect(refused.headers['retry-after']).toBe('5');
    }
    const done = answers.find((a) => a.status === 200)!;
    expect((JSON.parse(done.body) as { image: { width: number; height: number } }).image).toEqual({ width: 16383, height: 3050 });
    expect(answeredMeanwhile).toBe(1);
    expect(firstDone).toBe(2);
    // Four at once reached 1.82 GB above the start; one at a time stays near one decode's cost.
    console.log(`burst of 4 huge WebPs: peak memory growth ${growthMb.toFixed(0)} MB`);
    expect(growthMb).toBeLessThan(1400);
    expect(server.handler).toBeDefined();
  });
});

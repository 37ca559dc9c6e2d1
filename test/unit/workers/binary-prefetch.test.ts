import { afterEach, describe, expect, test, vi } from 'vitest';
import { prefetchBinary } from '../../../workers/binary-prefetch.js';

const BINARY = 'https://app.example/assets/ort-wasm-simd-threaded-abc.wasm';
const scope = globalThis as { fetch: typeof fetch };
const original = scope.fetch;

/** A stand-in for the network: each call answers a new response naming its URL and its number. */
function network() {
  let n = 0;
  const calls: { url: string; init: RequestInit | undefined }[] = [];
  const fake = vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    calls.push({ url, init });
    return Promise.resolve(new Response(`${url} #${++n}`));
  });
  scope.fetch = fake;
  return { calls, fake };
}

afterEach(() => {
  scope.fetch = original;
});

describe('prefetchBinary', () => {
  test("asks for the binary at once, and answers onnxruntime-web's later fetch of it with that response, not a second request", async () => {
    const { calls } = network();
    prefetchBinary(BINARY);
    expect(calls).toEqual([{ url: BINARY, init: { credentials: 'same-origin' } }]);
    const answer = await fetch(BINARY, { credentials: 'same-origin' });
    expect(await answer.text()).toBe(`${BINARY} #1`);
    expect(calls).toHaveLength(1);
  });

  test('hands the response over once: a later fetch of the binary (a file check after a failure) is a request of its own', async () => {
    const { calls, fake } = network();
    prefetchBinary(BINARY);
    await fetch(BINARY);
    expect(scope.fetch).toBe(fake);
    expect(await (await fetch(BINARY)).text()).toBe(`${BINARY} #2`);
    expect(calls).toHaveLength(2);
  });

  test('other requests, and other methods on the same URL, pass through untouched while the binary waits', async () => {
    const { calls } = network();
    prefetchBinary(BINARY);
    expect(await (await fetch('https://app.example/assets/weights.onnx')).text()).toBe('https://app.example/assets/weights.onnx #2');
    expect(await (await fetch(BINARY, { method: 'HEAD' })).text()).toBe(`${BINARY} #3`);
    expect(await (await fetch(new Request(BINARY))).text()).toBe(`${BINARY} #1`);
    expect(calls.map((c) => c.url)).toEqual([BINARY, 'https://app.example/assets/weights.onnx', BINARY]);
  });

  test("the returned function puts the worker's fetch back when the binary was never asked for (onnxruntime-web failed first)", () => {
    const { fake } = network();
    const stop = prefetchBinary(BINARY);
    expect(scope.fetch).not.toBe(fake);
    stop();
    expect(scope.fetch).toBe(fake);
    stop();
    expect(scope.fetch).toBe(fake);
  });

  test('a prefetch that gets no answer leaves no unhandled rejection: the failure comes to whoever asks for the binary', async () => {
    scope.fetch = () => Promise.reject(new TypeError('Failed to fetch'));
    prefetchBinary(BINARY);
    await expect(fetch(BINARY)).rejects.toThrow('Failed to fetch');
  });
});

// One abort error: a platform request's abort and a segmenter's are the same class, EdgesegAbortError
// (code ABORTED); AbortedError is that class under its deprecated name; the guards and the worker's error
// transfer keep its class, code and request.
import { expose, wrap, type Remote } from 'comlink';
import { afterEach, describe, expect, test } from 'vitest';
import {
  AbortedError,
  createSegmenter,
  EdgesegAbortError,
  EdgesegError,
  encodeMaskPng,
  isEdgesegError,
  isPlatformError,
  PlatformClient,
  PlatformError,
} from '../../../src/index.js';
import { EdgesegAbortError as NodeEdgesegAbortError, isEdgesegError as nodeIsEdgesegError } from '../../../src/node/index.js';
import { deserializeError, installErrorTransfer, serializeError } from '../../../src/runtime/error-transfer.js';
import { errorOf, TEST_KEY, usePlatformTestServer } from '../../helpers/platform-client.js';

const t = usePlatformTestServer(5000);

describe('a platform request aborted', () => {
  test('rejects with EdgesegAbortError, an EdgesegError and no PlatformError, its request masked', async () => {
    t.server.script('GET /ws', { delayMs: 2000, json: { workspace: {} } });
    const controller = new AbortController();
    const pending = t.client.workspace('ws', { signal: controller.signal });
    await t.server.requested('GET /ws');
    controller.abort(new Error('the user left'));
    const error = (await errorOf(pending)) as unknown as EdgesegAbortError;

    expect(error).toBeInstanceOf(EdgesegAbortError);
    expect(error).toBeInstanceOf(EdgesegError);
    expect(error).not.toBeInstanceOf(PlatformError);
    expect(error.name).toBe('EdgesegAbortError');
    expect(error.code).toBe('ABORTED');
    expect(isEdgesegError(error)).toBe(true);
    expect(isPlatformError(error)).toBe(false);
    expect(error.method).toBe('GET');
    expect(error.url).toBe(`${t.server.url}/ws?api_key=***`);
    // The key is in no field a caller may print.
    const printed = JSON.stringify({ message: error.message, json: error.toJSON(), url: error.url, stack: error.stack });
    expect(printed).not.toContain(TEST_KEY);
    expect(error.toJSON()).toEqual({
      name: 'EdgesegAbortError',
      code: 'ABORTED',
      message: `GET ${t.server.url}/ws?api_key=*** was aborted`,
      method: 'GET',
      url: `${t.server.url}/ws?api_key=***`,
    });
  });

  test('a signal aborted before the call rejects with the same class', async () => {
    const error = await errorOf(t.client.root({ signal: AbortSignal.abort() }));
    expect(error).toBeInstanceOf(EdgesegAbortError);
    expect(error.code).toBe('ABORTED');
    expect(t.server.requests).toHaveLength(0);
  });
});

describe("a segmenter's call on the hosted route, aborted", () => {
  test('rejects with EdgesegAbortError, as a call on WebGPU or WASM does (the segmenter ends the call itself)', async () => {
    t.server.script('POST /infer/shapes/2', { delayMs: 2000, json: {} });
    const platform = new PlatformClient({ apiKey: TEST_KEY, baseUrl: t.server.url, inferenceUrl: `${t.server.url}/infer` });
    // The model's URL is never fetched: the hosted route is the only backend.
    const segmenter = await createSegmenter({
      model: 'http://127.0.0.1:9/no-package/',
      platform,
      backends: ['hosted'],
      hosted: { project: 'shapes', version: 2 },
    });
    try {
      const controller = new AbortController();
      const pending = segmenter.segment(encodeMaskPng(new Uint8Array(4), 2, 2), { signal: controller.signal });
      await t.server.requested('POST /infer/shapes/2');
      controller.abort();
      const error = (await errorOf(pending)) as unknown as EdgesegAbortError;
      expect(error).toBeInstanceOf(EdgesegAbortError);
      expect(error.code).toBe('ABORTED');
      expect(isPlatformError(error)).toBe(false);
    } finally {
      await segmenter.dispose();
    }
  });
});

describe('AbortedError, the deprecated name', () => {
  test('is the same class: instanceof holds both ways, and one made under the old name is an EdgesegAbortError', () => {
    expect(AbortedError).toBe(EdgesegAbortError);
    // The Node entry's class is the browser entry's: one module, one class.
    expect(NodeEdgesegAbortError).toBe(EdgesegAbortError);
    const old = new AbortedError('stopped', { method: 'POST', url: 'http://127.0.0.1/x?api_key=***' });
    expect(old).toBeInstanceOf(EdgesegAbortError);
    expect(new EdgesegAbortError()).toBeInstanceOf(AbortedError);
    expect([old.name, old.code, old.method, old.message]).toEqual(['EdgesegAbortError', 'ABORTED', 'POST', 'stopped']);
    expect(nodeIsEdgesegError(old)).toBe(true);
  });
});

describe('across the worker', () => {
  test('serialized and rebuilt: its class, code, message, request and name across realms', () => {
    const sent = new EdgesegAbortError('GET http://h/ws?api_key=*** was aborted', {
      method: 'GET',
      url: 'http://h/ws?api_key=***',
      cause: new Error('why'),
    });
    const wire = structuredClone(serializeError(sent));
    expect(wire).toMatchObject({ name: 'EdgesegAbortError', code: 'ABORTED', fields: { method: 'GET', url: 'http://h/ws?api_key=***' } });
    const back = deserializeError(wire) as EdgesegAbortError;
    expect(back).toBeInstanceOf(EdgesegAbortError);
    expect([back.code, back.message, back.method, back.url]).toEqual(['ABORTED', sent.message, 'GET', 'http://h/ws?api_key=***']);
    // A plain object with its name and code (another realm's error) passes the guard.
    expect(isEdgesegError({ name: 'EdgesegAbortError', code: 'ABORTED', message: 'x' })).toBe(true);
  });

  let port1: MessagePort | undefined;
  let port2: MessagePort | undefined;
  afterEach(() => {
    port1?.close();
    port2?.close();
  });

  test('thrown on one side of a comlink channel, caught on the other as its class', async () => {
    installErrorTransfer();
    ({ port1, port2 } = new MessageChannel());
    const side = {
      abortSegment(): void {
        throw new EdgesegAbortError(undefined, { cause: 'stop' });
      },
      abortRequest(): void {
        throw new AbortedError('POST http://h/infer?api_key=*** was aborted', { method: 'POST', url: 'http://h/infer?api_key=***' });
      },
    };
    expose(side, port1);
    const remote: Remote<typeof side> = wrap(port2);

    const local = await remote.abortSegment().then(
      () => null,
      (e: unknown) => e,
    );
    expect(local).toBeInstanceOf(EdgesegAbortError);
    expect((local as EdgesegAbortError).code).toBe('ABORTED');
    expect((local as EdgesegAbortError).message).toBe('The operation was aborted.');

    const request = (await remote.abortRequest().then(
      () => null,
      (e: unknown) => e,
    )) as EdgesegAbortError;
    expect(request).toBeInstanceOf(EdgesegAbortError);
    expect([request.name, request.code, request.method, request.url]).toEqual([
      'EdgesegAbortError',
      'ABORTED',
      'POST',
      'http://h/infer?api_key=***',
    ]);
  });
});

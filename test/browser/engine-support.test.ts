// The README's support table, asserted in the engine that runs this file (see test/engines/support.ts):
// each API it says the engine has or lacks is probed here, on this cross-origin isolated page.
import { expect, test } from 'vitest';
import { server } from 'vitest/browser';
import type { EngineName } from '../engines/index.js';
import { SUPPORT } from '../engines/support.js';
import { jpegPlanes, opaquePixels } from '../../src/decode/decode-in-worker.js';
import { readImageHeader } from '../../src/decode/image-header.js';

const support = SUPPORT[server.browser as EngineName];

/** What a worker sees: OffscreenCanvas with a 2D context, Web Locks, SharedArrayBuffer. */
async function inWorker(): Promise<{ offscreenCanvas: boolean; locks: boolean; sharedArrayBuffer: boolean }> {
  const source = `self.postMessage({
    offscreenCanvas: typeof OffscreenCanvas === 'function' && !!new OffscreenCanvas(2, 2).getContext('2d'),
    locks: !!(self.navigator && self.navigator.locks),
    sharedArrayBuffer: typeof SharedArrayBuffer === 'function',
  });`;
  const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  const worker = new Worker(url);
  try {
    return await new Promise((resolve, reject) => {
      worker.onmessage = (e: MessageEvent<{ offscreenCanvas: boolean; locks: boolean; sharedArrayBuffer: boolean }>) => resolve(e.data);
      worker.onerror = () => reject(new Error('the probe worker did not run'));
    });
  } finally {
    worker.terminate();
    URL.revokeObjectURL(url);
  }
}

test(`${server.browser}: the APIs the support table says it has, and only those`, async () => {
  expect(crossOriginIsolated).toBe(true);
  const jpeg = new Uint8Array(await (await fetch('/test/fixtures/jpeg/ycc420-97x61.jpg')).arrayBuffer());
  const png = await createImageBitmap(await (await fetch('/test/fixtures/reference/data/shapes-300x200.png')).blob(), {
    premultiplyAlpha: 'none',
    colorSpaceConversion: 'none',
  });
  const worker = await inWorker();
  const found = {
    webgpu: 'gpu' in navigator,
    sharedArrayBuffer: typeof SharedArrayBuffer === 'function' && worker.sharedArrayBuffer,
    jpegPlanes: (await jpegPlanes(jpeg, readImageHeader(jpeg))) !== null,
    videoFrameCopy: (await opaquePixels(png)) !== null,
    webLocks: !!navigator.locks && worker.locks,
    measureMemory: typeof (performance as { measureUserAgentSpecificMemory?: unknown }).measureUserAgentSpecificMemory === 'function',
    offscreenCanvasInWorker: worker.offscreenCanvas,
  };
  png.close();
  const { label: _label, version: _version, ...expected } = support;
  expect(found).toEqual(expected);
});

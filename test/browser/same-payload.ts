// What the browser tests that compare a browser backend with Node native share.
import { expect } from 'vitest';
import { rawFromPayload, type Fallback, type SegmentationPayload } from '../../src/index.js';

/** Why backends were left, without the notes on WASM threads (NO_SHARED_MEMORY in WebKitGTK; see runtime-threads.test.ts). */
export const backendFallbacks = (seg: { fallbacks: readonly Fallback[] }) =>
  seg.fallbacks.filter((f) => f.code !== 'NOT_ISOLATED' && f.code !== 'NO_SHARED_MEMORY');

/** A reference fixture image's bytes (`file` relative to test/fixtures/reference/). */
export const bytesOf = async (file: string) => new Uint8Array(await (await fetch(`/test/fixtures/reference/${file}`)).arrayBuffer());

/**
 * Compares a browser payload with the Node one for the image file `image`, prints the share of equal mask
 * pixels (under `label`, the image's name by default), and asserts on it: exact for a PNG.
 */
export function expectSamePayload(image: string, browser: SegmentationPayload, node: SegmentationPayload, label = image): void {
  expect(browser.class_map).toEqual(node.class_map);
  expect(browser.image).toEqual(node.image);
  const a = rawFromPayload(browser).classIds;
  const b = rawFromPayload(node).classIds;
  expect(a.length).toBe(b.length);
  let equal = 0;
  for (let i = 0; i < a.length; i++) if (a[i] === b[i]) equal++;
  const share = equal / a.length;
  console.log(`${label}: ${(share * 100).toFixed(4)}% of ${a.length} mask pixels equal to Node native`);
  // A PNG decodes to the same pixels everywhere: every mask pixel must match. A JPEG goes through each
  // engine's own decoder (README, Browser engines): 99.99% at least.
  if (/\.png$/i.test(image)) expect(share).toBe(1);
  else expect(share).toBeGreaterThanOrEqual(0.9999);
}

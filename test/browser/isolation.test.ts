import { expect, test } from 'vitest';

test('the test page is cross-origin isolated, so WASM can use threads', () => {
  expect(globalThis.crossOriginIsolated).toBe(true);
  expect(typeof SharedArrayBuffer).toBe('function');
});

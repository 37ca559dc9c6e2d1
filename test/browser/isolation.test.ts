import { expect, test } from 'vitest';
import { server } from 'vitest/browser';

test('the test page is cross-origin isolated, so WASM can use threads (WebKitGTK: no SharedArrayBuffer even so)', () => {
  expect(globalThis.crossOriginIsolated).toBe(true);
  // WebKitGTK 2.50 keeps SharedArrayBuffer off (Safari turns it on for isolated pages): see runtime-threads.test.ts.
  expect(typeof SharedArrayBuffer).toBe(server.browser === 'webkit' ? 'undefined' : 'function');
});

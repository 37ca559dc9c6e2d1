import { expect, test } from 'vitest';

test('the WebGPU project has an adapter', async () => {
  const adapter = await navigator.gpu?.requestAdapter();
  expect(adapter).toBeTruthy();
});

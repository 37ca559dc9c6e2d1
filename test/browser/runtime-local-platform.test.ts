import { expect, test } from 'vitest';
import { commands } from 'vitest/browser';
import { createSegmenter, PlatformClient, rawFromPayload } from '../../src/index.js';
import manifest from '../fixtures/reference/manifest.json';
import { backendFallbacks } from './same-payload.js';

const IMAGE = manifest.endToEnd.find((c) => c.file.endsWith('300x200.png'))!.file;
const bytesOf = async () => new Uint8Array(await (await fetch(`/test/fixtures/reference/${IMAGE}`)).arrayBuffer());

test('against the local platform: a version through the ort route, and the hosted fallback', async () => {
  const { baseUrl, inferenceUrl, apiKey } = await commands.localPlatform();
  const platform = new PlatformClient({ apiKey, baseUrl, inferenceUrl });
  const reference = await commands.nodeSegment('test/fixtures/models/tiny-legacy', `test/fixtures/reference/${IMAGE}`, 50);

  const local = await createSegmenter({
    model: { workspace: 'edgeseg-demo', project: 'shapes', version: 2 },
    platform,
    backends: ['wasm', 'hosted'],
  });
  expect(local.backend).toBe('wasm');
  expect(await local.segment(await bytesOf())).toEqual(reference);
  await local.dispose();

  // The package cannot run here: the same call is answered by the platform's hosted route.
  const hosted = await createSegmenter({
    model: '/test/fixtures/models/unrunnable/',
    platform,
    hosted: { project: 'shapes', version: 2 },
    backends: ['wasm', 'hosted'],
  });
  expect(hosted.backend).toBe('hosted');
  expect(backendFallbacks(hosted)[0]).toMatchObject({ backend: 'wasm', code: 'MODEL_LOAD_FAILED' });
  const payload = await hosted.segment(await bytesOf());
  expect(payload).toEqual(reference);
  const raw = await hosted.segmentRaw(await bytesOf());
  expect([raw.width, raw.height]).toEqual([300, 200]);
  expect(raw.classIds).toEqual(rawFromPayload(reference).classIds);
  // The route answers with class ids only: the soft alpha asked for is their mask's (0 on background, id 0 here).
  const { alpha } = await hosted.segmentRaw(await bytesOf(), { alpha: true });
  expect(alpha).toEqual(raw.classIds.map((id) => (id === 0 ? 0 : 255)));
  await hosted.dispose();
});

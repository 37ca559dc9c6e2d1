// The local platform's hosted route and the CLI on the shared bad-image table: a 4xx (400) with the
// decoder's code for each, the server still answering; the CLI exits 3 (bad input) naming the code.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startPlatformServer, type PlatformServer } from '../../server/index.js';
import { badImages } from '../fixtures/bad-images.js';
import { ensureBuilt, runCli } from '../helpers/built-cli.js';
import { samples } from '../helpers/image-samples.js';
import { TINY } from '../helpers/paths.js';

const s = samples();
const bad = badImages(s);
let dir: string;
let platform: PlatformServer;
beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'edgeseg-bad-images-'));
  platform = await startPlatformServer({ port: 0, dataDir: join(dir, 'data'), modelDir: TINY('tiny-legacy') });
});
afterAll(async () => {
  await platform.close();
  rmSync(dir, { recursive: true, force: true });
});

const infer = (bytes: Uint8Array) =>
  fetch(`${platform.inferenceUrl}/shapes/2?api_key=${encodeURIComponent(platform.apiKey)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: Buffer.from(bytes).toString('base64'),
  });

describe('the hosted route answers each bad image with a 400 and its code', () => {
  test('every one of the table, then a good image', async () => {
    const got: Record<string, string> = {};
    const want: Record<string, string> = {};
    // An empty body is the route's own 400 (no image); the decoder's table starts after it.
    for (const { name, bytes, code } of bad.filter((b) => b.bytes.length > 0)) {
      want[name] = `400 ${code}`;
      const response = await infer(bytes);
      const body = (await response.json()) as Record<string, unknown>;
      got[name] = `${response.status} ${JSON.stringify(body).match(/IMAGE_[A-Z_]+/)?.[0]}`;
      expect(JSON.stringify(body)).not.toContain(platform.apiKey);
    }
    expect(got).toEqual(want);
    const ok = await infer(s.png);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { image: unknown }).image).toEqual({ width: 24, height: 16 });
  });
});

describe('the CLI exits 3 with the code', () => {
  const picked = ['a PNG whose header says 0×0', 'an SVG', 'a PDF', 'a BMP', 'the gif signature and junk'];
  test.each(picked)('%s', async (name) => {
    const { bytes, code } = bad.find((b) => b.name === name)!;
    const file = join(dir, `${name.replace(/\W+/g, '-')}.img`);
    writeFileSync(file, bytes);
    const r = await runCli(['segment', file, '--model', TINY('tiny-legacy')]);
    expect([r.code, r.stderr.includes(code)]).toEqual([3, true]);
  });
});

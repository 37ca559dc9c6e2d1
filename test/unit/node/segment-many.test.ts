import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSegmenter, InvalidInputError, type NodeImageSource, type NodeSegmenter } from '../../../src/node/index.js';
import { fixturePath, manifest } from '../../fixtures/reference/fixtures.js';
import { TINY } from '../../helpers/paths.js';
import { rejection } from '../../helpers/rejection.js';

const files = [...new Set(manifest.endToEnd.map((c) => c.file))].map((f) => fixturePath(f));

describe('segmentMany', () => {
  let seg: NodeSegmenter;
  beforeAll(async () => {
    seg = await createSegmenter({ model: TINY('tiny-legacy'), numThreads: 1 });
  });
  afterAll(() => seg.dispose());

  test('yields each source in order: the payload segment() gives, or the coded error, and goes on', async () => {
    const bytes = await readFile(files[0]!);
    // A folder where a file is expected fails even for root, whom file modes do not stop.
    const sources: NodeImageSource[] = [
      files[0]!,
      '/nonexistent/photo.jpg',
      ...files.slice(1),
      new TextEncoder().encode('not an image'),
      tmpdir(),
      bytes,
    ];
    const results = [];
    for await (const r of seg.segmentMany(sources, { concurrency: 3, confidence: 40 })) results.push(r);
    expect(results.map((r) => r.index)).toEqual(sources.map((_, i) => i));
    expect(results.map((r) => r.source)).toEqual(sources);
    expect(results.map((r) => (r.ok ? 'ok' : r.error.code))).toEqual([
      'ok',
      'IMAGE_SOURCE_INVALID',
      ...files.slice(1).map(() => 'ok'),
      'IMAGE_FORMAT_UNSUPPORTED',
      'IMAGE_SOURCE_INVALID',
      'ok',
    ]);
    for (const r of results) {
      if (!r.ok) {
        expect(r.error).toBeInstanceOf(InvalidInputError);
        continue;
      }
      expect(r.payload).toEqual(await seg.segment(r.source, { confidence: 40 }));
      expect([r.image.width, r.image.height]).toEqual([r.payload.image.width, r.payload.image.height]);
      expect(r.raw.classIds.length).toBe(r.image.width * r.image.height);
    }
  });

  test('bad options throw at once, before any source is read', () => {
    for (const concurrency of [0, 1.5, -1, Infinity]) {
      expect(() => seg.segmentMany(files, { concurrency })).toThrow(expect.objectContaining({ code: 'OPTION_INVALID' }));
    }
    expect(() => seg.segmentMany(files, { confidence: 101 })).toThrow(expect.objectContaining({ code: 'CONFIDENCE_INVALID' }));
  });

  test('an abort stops the batch with ABORTED, and the segmenter keeps working', async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    const error = await rejection(
      (async () => {
        for await (const r of seg.segmentMany([...files, ...files], { concurrency: 2, signal: controller.signal })) {
          seen.push(r.index);
          controller.abort();
        }
      })(),
    );
    expect(error.code).toBe('ABORTED');
    expect(seen).toEqual([0]);
    expect((await seg.segment(files[0]!)).image.width).toBeGreaterThan(0);
  });

  test('reads a lazy source only as far as the window', async () => {
    let pulled = 0;
    async function* endless() {
      for (;;) {
        pulled++;
        // Each name a tick later, as from a directory walk.
        await Promise.resolve();
        yield files[pulled % files.length]!;
      }
    }
    let taken = 0;
    for await (const r of seg.segmentMany(endless(), { concurrency: 2 })) {
      expect(r.ok).toBe(true);
      if (++taken === 3) break;
    }
    expect(pulled).toBeLessThanOrEqual(3 + 2);
  });
});

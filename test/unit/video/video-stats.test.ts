// VideoStatsRecorder: the stats an app reads, from the frame loop's reports. The stages and the mask's
// age are medians over the last 120 frames that had them; the model's stages come with fresh masks only.
import { describe, expect, test } from 'vitest';
import type { FrameReport } from '../../../src/video/protocol.js';
import { VideoStatsRecorder } from '../../../src/video/video-stats.js';

const threads = { numThreads: 1, cores: 2, source: 'default' as const, reason: 'two cores' };
const now = { backend: 'wasm' as const, fallbacks: [], restarts: 0, path: 'worker' as const, compositor: 'canvas2d' as const, threads };

/** A written frame's report. */
const written = (extra: Partial<FrameReport>): FrameReport => ({ dropped: 0, waiting: false, latency: 5, ...extra });

describe('VideoStatsRecorder', () => {
  test("each stage is the median of the frames that had it; the model's only from frames with fresh masks", () => {
    const stats = new VideoStatsRecorder(true);
    // 10 frames: composite 1..10 ms; every third frame fresh, its round trip 20, 30, 40 ms.
    for (let i = 1; i <= 10; i++) {
      const fresh = i % 3 === 0;
      stats.record(
        written({
          ...(fresh ? { fresh: true } : {}),
          stages: { copy: 2, composite: i, ...(fresh ? { model: (20 * i) / 3, run: 12, refine: 4 } : {}) },
        }),
      );
    }
    const { stages } = stats.stats(now);
    expect(stages.composite).toBe(6);
    expect(stages.copy).toBe(2);
    expect(stages.model).toBe(40);
    expect([stages.run, stages.refine]).toEqual([12, 4]);
    // A stage no frame had: 0.
    expect([stages.write, stages.guide]).toEqual([0, 0]);
    expect(stats.stats(now).masks).toBe(3);
    // The model's threads, and why, as the segmenter chose them.
    expect(stats.stats(now).threads).toEqual(threads);
  });

  test("the mask's age: p50 and p95 over the last 120 frames (a frame on its own masks counts 0)", () => {
    const stats = new VideoStatsRecorder(false);
    // 200 frames: the first 80 on masks 100 ms old (dropped from the window), then 100 at 0 and 20 at 50 ms.
    for (let i = 0; i < 80; i++) stats.record(written({ maskAge: 100 }));
    for (let i = 0; i < 100; i++) stats.record(written({}));
    for (let i = 0; i < 20; i++) stats.record(written({ maskAge: 50 }));
    expect(stats.stats(now).maskAge).toEqual({ p50: 0, p95: 50 });
    // A dropped frame's report (no latency) counts nothing.
    stats.record({ dropped: 1, waiting: false, maskAge: 500 });
    expect(stats.stats(now).maskAge).toEqual({ p50: 0, p95: 50 });
  });
});

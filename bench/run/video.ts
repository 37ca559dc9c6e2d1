// The video section: createVideoEffect's blur on fake 640×480 and 1280×720 cameras at 60 frames/s (`--video-fps N`),
// against the same blur built as a LiteRT.js user builds it on the main thread, side by side in one run.
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../test/chromium.js';
import { ROOT } from '../paths.js';
import { defaultThreads } from '../../src/runtime/threads.js';
import { STAGES } from '../../src/video/video-stats.js';
import { table } from '../stats.js';
import { quick, flag, textFlag, THREADS, OUT, line, VIDEO_FPS } from './options.js';
import { judge, url, benchServer, verdicts } from './harness.js';
import { PEOPLE_MODELS, PEOPLE_SIZES } from './people.js';
import type { SoakSample, VideoCase, VideoResult } from '../web/video.js';

/** edgeseg's runs: as it comes (`waitForMask: 'auto'`), and with each of the other two `waitForMask` values. */
const MODES = [
  { key: 'edgeseg', waitForMask: undefined, label: 'as it comes' },
  { key: 'waiting', waitForMask: true, label: 'waitForMask: true' },
  { key: 'latest', waitForMask: false, label: 'waitForMask: false' },
] as const;
type Mode = (typeof MODES)[number]['key'];

/** Each of edgeseg's runs (MODES), and the peer's. */
export type VideoRow = { size: string; peer: VideoResult } & Record<Mode, VideoResult>;
type Side = Exclude<keyof VideoRow, 'size'>;
const SIDES: readonly Side[] = [...MODES.map((m) => m.key), 'peer'];
const modeOf = (key: Mode) => MODES.find((m) => m.key === key)!;

/** Seconds measured per case (`--video-seconds N`), after a warm-up. */
export const SECONDS = flag('video-seconds') ?? (quick ? 3 : 5);
export const WARMUP_SECONDS = 3;
/** edgeseg's WASM threads (`--video-threads N`); by default none asked, so the effect picks its own, as an app that names none. */
const EDGESEG_THREADS = flag('video-threads');
const edgesegThreadsText = () =>
  EDGESEG_THREADS === undefined
    ? `its default WASM threads (for video, half the cores less one, at least 1, at most 4: ${defaultThreads(availableParallelism(), 'video')} here)`
    : `${EDGESEG_THREADS} WASM threads`;
/**
 * edgeseg's compositor (`--video-compositor webgl2|canvas2d`); by default `'auto'`, which is canvas 2D in a
 * Chromium whose WebGL is SwiftShader's, as here. `webgl2` forces the GPU path onto SwiftShader: its frame
 * rate is the CPU's, but whether the camera is held back by frames kept open shows all the same.
 */
const COMPOSITOR = ((value = textFlag('video-compositor')): 'webgl2' | 'canvas2d' | undefined => {
  if (value === undefined || value === 'webgl2' || value === 'canvas2d') return value;
  throw new Error('--video-compositor takes webgl2 or canvas2d');
})();
const FRAMES = 12;

/**
 * A .y4m camera for Chromium's fake capture: a photo of a person (models/people/samples) at `w`×`h`,
 * moved 2 px a frame and back, `fps` frames/s (Chromium loops the file).
 */
async function y4m(w: number, h: number, fps: number): Promise<string> {
  const { default: sharp } = await import('sharp');
  const pad = 2 * FRAMES;
  const { data } = await sharp(join(ROOT, 'models', 'people', 'samples', 'images', 'grace_hopper.jpg'))
    .resize(w + pad, h, { fit: 'cover' })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const stride = (w + pad) * 3;
  const parts: Buffer[] = [Buffer.from(`YUV4MPEG2 W${w} H${h} F${fps}:1 Ip A1:1 C420jpeg\n`)];
  for (let k = 0; k < FRAMES; k++) {
    const dx = 2 * (k < FRAMES / 2 ? k : FRAMES - k);
    const y = Buffer.alloc(w * h);
    const u = Buffer.alloc((w / 2) * (h / 2));
    const v = Buffer.alloc((w / 2) * (h / 2));
    for (let r = 0; r < h; r++)
      for (let c = 0; c < w; c++) {
        const o = r * stride + (c + dx) * 3;
        const [R, G, B] = [data[o]!, data[o + 1]!, data[o + 2]!];
        y[r * w + c] = 0.299 * R + 0.587 * G + 0.114 * B;
        if (!(r & 1) && !(c & 1)) {
          const i = (r / 2) * (w / 2) + c / 2;
          u[i] = 128 - 0.168736 * R - 0.331264 * G + 0.5 * B;
          v[i] = 128 + 0.5 * R - 0.418688 * G - 0.081312 * B;
        }
      }
    parts.push(Buffer.from('FRAME\n'), y, u, v);
  }
  const path = join(OUT, `camera-${w}x${h}-${fps}.y4m`);
  await writeFile(path, Buffer.concat(parts));
  return path;
}

/** Chromium with a fake camera of `w`×`h` at `fps` frames/s (see y4m). */
export async function cameraBrowser(w: number, h: number, fps = VIDEO_FPS) {
  const file = await y4m(w, h, fps);
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      ...CHROMIUM_ARGS,
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-video-capture=${file}`,
    ],
  });
}

/**
 * One case on the camera of `browser`: edgeseg's blur or the peer's, in a page of its own (LiteRT.js's and
 * onnxruntime-web's Wasm each set up once per page), SECONDS after WARMUP_SECONDS.
 */
export async function videoCase(
  browser: Browser,
  origin: string,
  fn: 'edgeseg' | 'peer',
  c: Pick<VideoCase, 'fps' | 'threads' | 'waitForMask' | 'edgesegThreads' | 'compositor'>,
): Promise<VideoResult> {
  const m = PEOPLE_MODELS[0]!;
  const page = await browser.newPage();
  page.on('pageerror', (e) => console.error('page error:', e.message));
  await page.goto(`${origin}/web/video.html`);
  await page.waitForFunction(() => (window as unknown as { videoBenchReady?: boolean }).videoBenchReady === true);
  const config: VideoCase = {
    model: `${url(m.dir)}/`,
    tflite: url(m.tflitePath),
    height: m.height,
    width: m.width,
    seconds: SECONDS,
    warmup: WARMUP_SECONDS,
    ...c,
  };
  const result = await page.evaluate(
    ([f, cfg]) => (window as unknown as { videoBench: Record<string, (c: unknown) => Promise<VideoResult>> }).videoBench[f]!(cfg),
    [fn, config] as const,
  );
  await page.close();
  return result;
}

export async function videoSection(origin: string): Promise<VideoRow[]> {
  await mkdir(OUT, { recursive: true });
  line(
    `\nVideo: createVideoEffect (blur, people model on WASM, ${edgesegThreadsText()}) vs LiteRT.js on the main thread (${THREADS} threads), camera at ${VIDEO_FPS} frames/s, ${SECONDS} s per case`,
  );
  const rows: VideoRow[] = [];
  for (const size of PEOPLE_SIZES) {
    const [w, h] = size.split('x').map(Number) as [number, number];
    const browser = await cameraBrowser(w, h);
    const run = (which: Side) =>
      videoCase(browser, origin, which === 'peer' ? 'peer' : 'edgeseg', {
        fps: VIDEO_FPS,
        threads: THREADS,
        ...(which === 'peer' ? {} : { waitForMask: modeOf(which).waitForMask, edgesegThreads: EDGESEG_THREADS, compositor: COMPOSITOR }),
      });
    const row = { size } as VideoRow;
    for (const side of SIDES) row[side] = await run(side);
    await browser.close();
    rows.push(row);
    line(`video ${size}: ${SIDES.map((k) => `${k === 'peer' ? 'peer' : `edgeseg, ${modeOf(k).label},`} ${describe(row[k])}`).join(' · ')}`);
  }
  return rows;
}

const stageText = (stages: Record<string, number> | undefined) =>
  stages
    ? Object.entries(stages)
        .map(([k, ms]) => `${k} ${ms.toFixed(1)}`)
        .join(', ')
    : '';

const describe = (r: VideoResult) =>
  `${r.fps.toFixed(1)} frames/s, ${r.maskFps.toFixed(1)} new masks/s, mask age p50 ${r.maskAge.p50.toFixed(0)} ms${r.stages ? ` (stages, ms: ${stageText(r.stages)})` : ''}, latency p50 ${r.latency.p50.toFixed(0)} / p95 ${r.latency.p95.toFixed(0)} ms, main thread ${r.mainMsPerFrame.toFixed(2)} ms/frame${r.carried === undefined ? '' : `, ${r.carried} carried`}${r.waitsForMask === undefined ? '' : `, frames ${r.waitsForMask ? 'waited' : 'did not wait'} for their mask at the end`}${r.waitedShare === undefined ? '' : ` (waited ${(100 * r.waitedShare).toFixed(0)}% of the time, ${r.waitChanges} changes)`}`;

export function videoReport(rows: VideoRow[]): string {
  const out = [
    `\n### Video: createVideoEffect against a LiteRT.js main-thread blur; fake camera at ${VIDEO_FPS} frames/s, ${SECONDS} s per case after ${WARMUP_SECONDS} s of warm-up; edgeseg ${edgesegThreadsText()}, the peer ${THREADS} WASM threads\n`,
  ];
  out.push(
    table(
      [
        'camera',
        'runs',
        'output frames/s',
        'new masks/s',
        'mask age p50 / p95, ms',
        'latency p50 / p95, ms',
        'main thread, ms/frame',
        'long tasks, ms/frame',
        'dropped',
      ],
      rows.flatMap((r) =>
        SIDES.map((k) => {
          const v = r[k];
          return [
            r.size,
            k === 'peer' ? 'LiteRT.js on the page' : `edgeseg (${v.path}, ${v.compositor}, ${modeOf(k).label})`,
            v.fps.toFixed(1),
            v.maskFps.toFixed(1),
            `${v.maskAge.p50.toFixed(0)} / ${v.maskAge.p95.toFixed(0)}`,
            `${v.latency.p50.toFixed(0)} / ${v.latency.p95.toFixed(0)}`,
            v.mainMsPerFrame.toFixed(2),
            v.longTaskMsPerFrame.toFixed(1),
            String(v.dropped),
          ];
        }),
      ),
    ),
  );
  out.push('\nRatios, edgeseg ÷ peer:\n');
  out.push(
    table(
      ['camera', 'edgeseg', 'frames/s', 'new masks/s', 'latency p50', 'latency p95', 'main thread ms/frame'],
      rows.flatMap((r) =>
        MODES.map(({ key: k, label }) => [
          r.size,
          label,
          (r[k].fps / r.peer.fps).toFixed(2),
          (r[k].maskFps / r.peer.maskFps).toFixed(2),
          (r[k].latency.p50 / r.peer.latency.p50).toFixed(2),
          (r[k].latency.p95 / r.peer.latency.p95).toFixed(2),
          (r[k].mainMsPerFrame / r.peer.mainMsPerFrame).toFixed(3),
        ]),
      ),
    ),
  );
  out.push(
    '\nWhere a frame’s time goes in edgeseg’s workers (`stats.stages`: medians of the last 120 frames that had each stage, ms; the model’s stages from frames with fresh masks):\n',
  );
  out.push(
    table(
      ['camera', 'edgeseg', ...STAGES],
      rows.flatMap((r) => MODES.map(({ key: k, label }) => [r.size, label, ...STAGES.map((n) => (r[k].stages?.[n] ?? 0).toFixed(1))])),
    ),
  );
  out.push(
    '\nMask age: how much older than the frame shown the frame its mask was made from is (the peer: 0, each frame it shows has its own mask, and the frames it has no time for are not shown). Stages: `copy` the camera frame into an RGB copy, `prepare` the network input, `guide` the frame at the refinement’s size, `model` the round trip to the model’s worker, of which `run` is the network and `grid` its output to class ids and probability; `refine` temporal smoothing and edge refinement (in the loop’s worker, while the model takes the next frame); `composite` the blur, `write` the frame to the output track.',
  );
  out.push(
    '\nMain thread: edgeseg, the time in the page’s message listeners (comlink’s per-frame report; the browser’s own relay of each frame to the track generator is not in it); the peer, each frame’s work from the video callback to the composited canvas (LiteRT.js runs on the page). Latency: edgeseg, the worker’s frame read → frame written; the peer, the video callback → canvas composited.',
  );
  return out.join('\n');
}

/** The targets, for each of edgeseg's runs. */
export function videoTargets(rows: VideoRow[]): void {
  for (const r of rows) {
    const ratio = r.edgeseg.maskFps / r.peer.maskFps;
    judge(
      `video: new masks/s ≥ 1.0 × the peer's at ${r.size} (as it comes)`,
      `${ratio.toFixed(2)}× (${r.edgeseg.maskFps.toFixed(1)} vs ${r.peer.maskFps.toFixed(1)})`,
      ratio >= 1,
    );
  }
  for (const { key: k, label } of MODES) {
    const mode = k === 'edgeseg' ? '' : ` (${label})`;
    for (const r of rows) {
      const v = r[k];
      const ratio = v.fps / r.peer.fps;
      judge(
        `video${mode}: output frames/s ≥ 1.5 × the peer's at ${r.size}`,
        `${ratio.toFixed(2)}× (${v.fps.toFixed(1)} vs ${r.peer.fps.toFixed(1)})`,
        ratio >= 1.5,
      );
      judge(
        `video${mode}: p95 latency ≤ 2 frame intervals (${(2000 / VIDEO_FPS).toFixed(0)} ms) at ${r.size}`,
        `${v.latency.p95.toFixed(0)} ms`,
        v.latency.p95 <= 2000 / VIDEO_FPS,
      );
      judge(
        `video${mode}: main thread ≤ 1 ms per frame (worker path) at ${r.size}`,
        `${v.mainMsPerFrame.toFixed(2)} ms`,
        v.mainMsPerFrame <= 1,
      );
    }
    const vga = rows.find((r) => r.size === '640x480');
    // A camera at 60 frames/s: a count over the measured seconds lands within a frame or two of it.
    if (vga)
      judge(
        `video${mode}: ≥ 60 output frames/s at 640×480 (counted to ±0.5${VIDEO_FPS === 60 ? ': every frame of the camera' : ''})`,
        `${vga[k].fps.toFixed(2)} frames/s, ${vga[k].dropped} dropped`,
        vga[k].fps >= 59.5,
      );
  }
}

/** The video targets judged (added to the bench's verdicts), as a table of their own. */
export function videoTargetTable(rows: VideoRow[]): string {
  const first = verdicts.length;
  videoTargets(rows);
  return `### Video targets\n\n${table(
    ['target', 'measured', 'verdict'],
    verdicts.slice(first).map((v) => [v.target, v.measured, v.outcome]),
  )}`;
}

/** `--video-only`: the video section alone, on its own page server; bench/out/video.{json,md}. */
export async function videoOnly(): Promise<void> {
  const server = await benchServer();
  const origin = server.resolvedUrls!.local[0]!.replace(/\/$/, '');
  try {
    const rows = await videoSection(origin);
    verdicts.length = 0;
    const md = `${videoReport(rows)}\n\n${videoTargetTable(rows)}`;
    line(`\n${md}`);
    await writeFile(
      join(OUT, 'video.json'),
      JSON.stringify(
        {
          date: new Date().toISOString(),
          threads: THREADS,
          edgesegThreads: EDGESEG_THREADS ?? null,
          seconds: SECONDS,
          cameraFps: VIDEO_FPS,
          rows,
          verdicts,
        },
        null,
        1,
      ),
    );
    await writeFile(join(OUT, 'video.md'), md);
  } finally {
    await server.close();
  }
}

/**
 * `--video-soak`: a long call (`--soak-minutes N`, default 10) of the blur on a fake 640×480 camera at 30
 * frames/s, memory and counters read every 30 s; bench/out/video-soak.{json,md}. Run it with `--threads 1`:
 * Chromium's memory measurement waits for every worker, and onnxruntime's thread-pool workers, blocked
 * between runs, answer it only at its 60 s timeout.
 */
export async function videoSoak(): Promise<void> {
  const minutes = flag('soak-minutes') ?? 10;
  const every = Math.min(30, minutes * 6);
  const server = await benchServer();
  const origin = server.resolvedUrls!.local[0]!.replace(/\/$/, '');
  const browser = await cameraBrowser(640, 480);
  try {
    await mkdir(OUT, { recursive: true });
    const page = await browser.newPage();
    page.on('pageerror', (e) => console.error('page error:', e.message));
    await page.goto(`${origin}/web/video.html`);
    await page.waitForFunction(() => (window as unknown as { videoBenchReady?: boolean }).videoBenchReady === true);
    const m = PEOPLE_MODELS[0]!;
    line(`Video soak: ${minutes} min of blur at 640×480, 30 frames/s, memory every ${every} s`);
    const config = {
      model: `${url(m.dir)}/`,
      tflite: '',
      height: m.height,
      width: m.width,
      threads: THREADS,
      seconds: 0,
      warmup: 0,
      minutes,
      every,
    };
    const result = await page.evaluate(
      (c) => (window as unknown as { videoBench: { soak: (c: unknown) => Promise<SoakResult> } }).videoBench.soak(c),
      config,
    );
    const md = soakReport(result, minutes);
    line(`\n${md}`);
    await writeFile(join(OUT, 'video-soak.json'), JSON.stringify({ date: new Date().toISOString(), minutes, ...result }, null, 1));
    await writeFile(join(OUT, 'video-soak.md'), md);
  } finally {
    await browser.close();
    await server.close();
  }
}

export type SoakResult = { samples: SoakSample[]; openAfterClose: number; outputEnded: boolean };

/**
 * The soak's table and verdict. A reading taken without a collection includes the garbage of the moment
 * (a spike of 2–4 MB that the next reading no longer has), so flatness is judged on medians of three
 * readings: those from the first minute on, against the last three. A leak raises them; a spike does not.
 */
export function soakReport({ samples, openAfterClose, outputEnded }: SoakResult, minutes: number): string {
  const mb = (b: number) => (b / 1e6).toFixed(1);
  const median3 = (s: SoakSample[]) => [...s].map((x) => x.bytes).sort((a, b) => a - b)[Math.floor(s.length / 2)]!;
  const later = samples.filter((s) => s.t >= 60);
  const [first, last] = [median3(later.slice(0, 3)), median3(later.slice(-3))];
  const change = (last - first) / first;
  const peak = Math.max(...later.map((s) => s.bytes));
  const end = samples.at(-1)!;
  const rows = samples.map((s) => [s.t.toFixed(0), mb(s.bytes), String(s.frames), String(s.dropped), String(s.openFrames), String(s.fps)]);
  return [
    `### Video soak: ${minutes} min of blur, 640×480 at 30 frames/s\n`,
    table(['s', 'memory, MB', 'frames', 'dropped', 'open frames', 'frames/s'], rows),
    `\nMemory, median of three readings: ${mb(first)} MB from the first minute on, ${mb(last)} MB at the end: ${(100 * change).toFixed(1)}% (target ≤ 5%): **${Math.abs(change) <= 0.05 ? 'PASS' : 'FALLS SHORT'}**. The highest single reading, ${mb(peak)} MB, is ${(100 * (peak / first - 1)).toFixed(1)}% above the first median.`,
    `Frames written ${end.frames}, dropped ${end.dropped}; input frames held open after close(): ${openAfterClose}; output track ended: ${outputEnded}.`,
  ].join('\n');
}

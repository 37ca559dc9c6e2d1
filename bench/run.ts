// The benchmark: edgeseg against its peers, measured in one run on this machine.
//
//   npm run bench            # everything; prints the tables and writes bench/out/results.{json,md}
//   npm run bench -- --quick # fewer runs, for a look
//   npm run bench -- --runs 1 --warmup 0 --seconds 1 --calls 20   # a smoke run of every part
//   npm run bench -- --webgpu  # everything, plus the WebGPU section below
//   npm run bench -- --people-only # the people section alone (below): bench/out/people.{json,md}
//   npm run bench -- --people-only --threads 1 --warmup 40  # one thread each, after the WASM tier-up
//   npm run bench -- --engines-only  # the engines section alone (bench/out/engines.{json,md})
//   npm run bench -- --first-visit-only  # the first-visit section alone (bench/out/first-visit.{json,md});
//                              # --first-visit-runs N page loads per case (3 by default)
//                              # --edgeseg-tarball FILE measures that packed edgeseg instead of this tree
//   npm run bench -- --threads-only  # WASM threads: stills and live video at 1, 2 and every core's worth,
//                              # edgeseg beside LiteRT.js at the same counts; bench/out/threads-<cores>c.{json,md}.
//                              # `taskset -c 0 npm run bench -- --threads-only` runs it as a 1-core machine;
//                              # --thread-counts 1,2,4, --thread-cameras 640x480@60,…, --threads-stills-only,
//                              # --threads-video-only narrow it
//   npm run bench:webgpu       # the WebGPU section alone (and the hosted route's masks it is compared
//                              # with); bench/out/webgpu.{json,md}. Add -- --webgpu-all for every model and
//                              # image on a software adapter too
//
// In headless Chromium (cross-origin isolated, 2 WASM threads) and in Node:
//   - edgeseg segment() and segmentRaw(), encoded image in (WASM backend in a worker);
//   - the model alone: onnxruntime-web session.run on a prepared tensor, same build and threads;
//   - the peer: transformers.js image-segmentation on the same ONNX weights, local files only;
//   - the hosted route of the local platform over loopback (onnxruntime-node);
// the people section: the bundled people model (MediaPipe's selfie segmenter, converted) on edgeseg WASM
// against Google's own runtime, LiteRT.js (XNNPACK), on the original .tflite, same page and threads: the
// model alone on both, and end to end edgeseg segment() / segmentRaw() against LiteRT.js plus the code an
// app writes around it (bench.ts `litertApp`), at 640×480 and 1280×720; and a 640×480 stream;
// plus cold starts, frames per second on a 640×480 stream, memory over 1,000 calls, and the gzipped
// size of what a page loads before the worker starts. Targets are printed with PASS or FALLS SHORT
// (or NOT MEASURED, with the reason, where a figure cannot answer its target).
//
// The engines section: edgeseg segment() end to end on the bundled model (WASM) in Chromium, Firefox ESR
// and WebKitGTK (test/engines), the same page and images in each, so that a regression in one engine shows.
//
// The first-visit section: navigation → first person mask on an empty profile and on a second visit, over
// Chromium's emulated links (20 Mbit/s with 40 ms, 5 Mbit/s with 150 ms) and loopback: an app with the
// packed edgeseg (people model, WASM) beside the LiteRT.js app path and MediaPipe tasks-vision's
// ImageSegmenter on the same selfie .tflite, each served by a compressing HTTPS host that counts the bytes
// each file puts on the wire.
//
// The WebGPU section (--webgpu, --webgpu-only) runs in a Chromium of its own, started with the flags
// for a real GPU (CHROMIUM_GPU_ARGS; EDGESEG_WEBGPU_ARGS adds more, space-separated) and, where those
// give no adapter, with SwiftShader forced. It records the adapter and the flags, and measures edgeseg
// on webgpu, onnxruntime-web's WebGPU EP alone and their ratio. A software adapter (SwiftShader, Mesa
// llvmpipe, any fallback adapter) proves the harness and the masks but is no speed figure: there only
// the bundled model at 640×480 is run (3 runs after 1 warm-up unless --runs/--warmup say otherwise)
// and the speed target reads NOT MEASURED.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { startPlatformServer, type PlatformServer } from '../server/index.js';
import { MODELS, requireBenchModels, ROOT } from './paths.js';
import { benchPipeline } from './pipeline.js';
import {
  RUNS,
  WARMUP,
  THREADS,
  WEBGPU_ONLY,
  PEOPLE_ONLY,
  VIDEO_ONLY,
  VIDEO_SOAK,
  WEBGPU,
  ENGINES_ONLY,
  FIRST_VISIT_ONLY,
  THREADS_ONLY,
  OUT,
  line,
} from './run/options.js';
import { verdicts, type ModelKey, benchServer, mainThreadSize } from './run/harness.js';
import { engineSection, engineReport, enginesOnly } from './run/engines.js';
import { browserSections } from './run/browser.js';
import { webgpuSection } from './run/webgpu.js';
import { peopleSection, peopleOnly } from './run/people.js';
import { videoSection, videoOnly, videoReport, videoSoak, videoTargetTable } from './run/video.js';
import { formatReport } from './run/report.js';
import { threadsOnly } from './run/threads.js';
import { firstVisitSection, firstVisitOnly, firstVisitReport, firstVisitTargetTable } from './run/first-visit.js';

async function main() {
  if (PEOPLE_ONLY) return peopleOnly();
  if (VIDEO_ONLY) return videoOnly();
  if (VIDEO_SOAK) return videoSoak();
  if (ENGINES_ONLY) return enginesOnly();
  if (FIRST_VISIT_ONLY) return firstVisitOnly();
  if (THREADS_ONLY) return threadsOnly();
  requireBenchModels();
  await mkdir(OUT, { recursive: true });
  const results: Record<string, unknown> = { date: new Date().toISOString(), runs: RUNS, warmup: WARMUP, threads: THREADS };

  // The hosted route: the local platform on loopback, one per model (version 2 = the model under test).
  const platforms = {} as Record<ModelKey, PlatformServer>;
  const dataDirs: string[] = [];
  for (const [key, model] of Object.entries(MODELS)) {
    const dir = await mkdtemp(join(tmpdir(), 'edgeseg-bench-'));
    dataDirs.push(dir);
    platforms[key as ModelKey] = await startPlatformServer({ port: 0, dataDir: dir, modelDir: model.dir });
  }
  const server = await benchServer();
  const origin = server.resolvedUrls!.local[0]!.replace(/\/$/, '');
  // The hosted route's mask per `model image`: the reference that both backends' masks are compared with.
  const hostedMasks = new Map<string, string>();

  const wasm = WEBGPU_ONLY ? null : await browserSections(origin, platforms, hostedMasks, results);
  const people = WEBGPU_ONLY ? null : await peopleSection(origin);
  if (people) results.people = people;
  const video = WEBGPU_ONLY ? null : await videoSection(origin);
  if (video) results.video = video;
  const engines = WEBGPU_ONLY ? null : await engineSection(origin);
  if (engines) results.engines = engines;
  const firstVisit = WEBGPU_ONLY ? null : await firstVisitSection();
  if (firstVisit) results.firstVisit = firstVisit;
  const webgpu = WEBGPU ? await webgpuSection(origin, platforms, hostedMasks) : null;
  if (webgpu) results.webgpu = webgpu;
  results.environment ??= { ...webgpu!.environment, node: process.version };
  await server.close();

  let pipeline: Awaited<ReturnType<typeof benchPipeline>> | null = null;
  if (!WEBGPU_ONLY) {
    // 5. What a page loads before the worker starts: a production build of `createSegmenter` alone.
    results.mainThreadBytes = await mainThreadSize();
    // 6. Node: stage times and the hosted route's server side.
    results.node = pipeline = await benchPipeline(RUNS, WARMUP, THREADS);
  }
  for (const p of Object.values(platforms)) await p.close();
  for (const d of dataDirs) await rm(d, { recursive: true, force: true });

  // Report.
  const report =
    formatReport(results, wasm && pipeline ? { ...wasm, pipeline } : null, webgpu, people) +
    (video ? `\n${videoReport(video)}\n\n${videoTargetTable(video)}` : '') +
    (engines ? `\n${engineReport(engines)}` : '') +
    (firstVisit ? `\n${firstVisitReport(firstVisit)}\n\n${firstVisitTargetTable(firstVisit)}` : '');
  const name = WEBGPU_ONLY ? 'webgpu' : 'results';
  line(`\n${report}`);
  await writeFile(join(OUT, `${name}.json`), JSON.stringify({ ...results, verdicts }, null, 1));
  await writeFile(join(OUT, `${name}.md`), report);
  line(`\nwrote ${relative(ROOT, join(OUT, `${name}.md`))} and ${name}.json`);
}

await main();

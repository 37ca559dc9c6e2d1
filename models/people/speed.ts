// Times onnxruntime-web's WASM build on the converted people models against LiteRT.js on the originals:
//
//   npx tsx models/people/speed.ts [--runs 60] [--model general|landscape [EXTRA.onnx ...]]
//
// One Node process, one thread each: LiteRT.js 2.5.3 (XNNPACK, its relaxed-SIMD build) runs the original
// .tflite, onnxruntime-web 1.30 (WASM SIMD, edgeseg's build) runs the committed weights.onnx and any extra
// ONNX files given (variants of the same graph, e.g. from speed_variants.py), interleaved run by run on
// one input (a sample photo stretched to the network's size). Each run is timed in CPU time of the
// process (process.cpuUsage) as well as wall time: on a machine shared with other work, the wall time
// swings with the load while the CPU time a single-threaded run takes barely moves, so ratios of
// CPU-time medians are what to compare. Every ONNX is first checked against LiteRT's output (largest
// |difference| after the sigmoid, ≤ 1e-4).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import vm from 'node:vm';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { ROOT } from '../../bench/paths.js';
import { PEOPLE_VARIANTS, TOLERANCE } from './parity/cases.js';

// LiteRT.js picks its fastest build only where relaxed SIMD is on (Chromium has it; Node 20 behind a flag).
setFlagsFromString('--experimental-wasm-relaxed-simd');

const arg = (name: string, fallback: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1]! : fallback;
};
const RUNS = Number(arg('--runs', '60'));
const WARMUP = 5;
const only = arg('--model', '');
const extras = process.argv.slice(2).filter((a) => a.endsWith('.onnx'));
if (extras.length > 0 && !only) throw new Error('extra ONNX files are variants of one model: name it with --model general|landscape');

type Run = (input: Float32Array) => Promise<Float32Array>;

/** LiteRT.js loads its Emscripten glue with importScripts or a <script>; Node gets the former. */
async function loadLiteRtInNode() {
  const wasmDir = join(ROOT, 'node_modules', '@litertjs', 'core', 'wasm');
  const g = globalThis as Record<string, unknown>;
  g.self = globalThis;
  g.require = createRequire(import.meta.url);
  g.__dirname = wasmDir;
  g.importScripts = (url: string) => {
    const path = url.startsWith('file:') ? fileURLToPath(url) : url;
    vm.runInThisContext(readFileSync(path, 'utf8'), { filename: path });
  };
  const litert = await import('@litertjs/core');
  await litert.loadLiteRt(`${wasmDir}/`);
  return litert;
}

async function main() {
  const litert = await loadLiteRtInNode();
  const ort = await import('onnxruntime-web/wasm');
  ort.env.wasm.numThreads = 1;
  ort.env.logLevel = 'error';
  for (const m of PEOPLE_VARIANTS) {
    const { name } = m;
    if (only && only !== name) continue;
    // A photo, so that the outputs compared are not all saturated (uniform noise gives probabilities ≈ 0).
    const { data } = await sharp(join(ROOT, 'models', 'people', 'samples', 'images', 'astronaut.png'))
      .removeAlpha()
      .resize(m.width, m.height, { fit: 'fill' })
      .raw()
      .toBuffer({ resolveWithObject: true });
    const input = Float32Array.from(data, (v) => v / 255);
    const nchw = new Float32Array(input.length);
    const plane = m.height * m.width;
    for (let p = 0; p < plane; p++) for (let c = 0; c < 3; c++) nchw[c * plane + p] = input[p * 3 + c]!;

    const runners: { label: string; run: Run }[] = [];
    const model = await litert.loadAndCompile(
      new Uint8Array(readFileSync(join(ROOT, 'node_modules', '@mediapipe', 'selfie_segmentation', m.tflite))),
      { accelerator: 'wasm', cpuOptions: { numThreads: 1 } },
    );
    runners.push({
      label: `LiteRT.js ${m.tflite}`,
      run: async () => {
        const tensor = new litert.Tensor(input, [1, m.height, m.width, 3]);
        try {
          const [output] = await model.run(tensor);
          try {
            return (output!.toTypedArray() as Float32Array).slice();
          } finally {
            output!.delete();
          }
        } finally {
          tensor.delete();
        }
      },
    });
    for (const file of [join(ROOT, 'models', 'people', name, 'weights.onnx'), ...extras]) {
      const session = await ort.InferenceSession.create(readFileSync(file), {
        executionProviders: ['wasm'],
        graphOptimizationLevel: 'all',
      });
      const feeds = { [session.inputNames[0]!]: new ort.Tensor('float32', nchw, [1, 3, m.height, m.width]) };
      runners.push({
        label: `onnxruntime-web ${file.startsWith(ROOT) ? file.slice(ROOT.length + 1) : file}`,
        run: async () => (await session.run(feeds))[session.outputNames[0]!]!.data as Float32Array,
      });
    }

    const expected = await runners[0]!.run(input);
    const cpu = runners.map(() => [] as number[]);
    const wall = runners.map(() => [] as number[]);
    const diffs: number[] = [];
    for (const r of runners.slice(1)) {
      const logits = await r.run(input);
      let max = 0;
      for (let i = 0; i < logits.length; i++) max = Math.max(max, Math.abs(1 / (1 + Math.exp(-logits[i]!)) - expected[i]!));
      diffs.push(max);
    }
    for (let i = 0; i < WARMUP + RUNS; i++) {
      for (const [k, r] of runners.entries()) {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        await r.run(input);
        const t = performance.now() - t0;
        const c = process.cpuUsage(c0);
        if (i >= WARMUP) {
          cpu[k]!.push((c.user + c.system) / 1000);
          wall[k]!.push(t);
        }
      }
    }
    const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1]!;
    const base = median(cpu[0]!);
    console.log(
      `\n${name} (${m.height}×${m.width}), one thread, ${RUNS} interleaved runs after ${WARMUP} warm-up; ms, median (CPU time / wall time)\n`,
    );
    console.log('| runtime and model | CPU ms | wall ms | CPU ÷ LiteRT | max diff after sigmoid |');
    console.log('|---|---|---|---|---|');
    for (const [k, r] of runners.entries()) {
      const d = k === 0 ? '—' : `${diffs[k - 1]!.toExponential(1)}${diffs[k - 1]! > TOLERANCE ? ' **over 1e-4**' : ''}`;
      console.log(
        `| ${r.label} | ${median(cpu[k]!).toFixed(2)} | ${median(wall[k]!).toFixed(2)} | ${(median(cpu[k]!) / base).toFixed(2)} | ${d} |`,
      );
    }
    if (diffs.some((d) => d > TOLERANCE)) process.exitCode = 1;
    model.delete();
  }
}

await main();

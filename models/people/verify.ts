// Checks the converted people models against the originals, on real photos and random inputs:
//
//   npx tsx models/people/verify.ts [--threads 1]
//
// LiteRT.js (XNNPACK, in Debian's Chromium) runs each original .tflite; onnxruntime-web (WASM, the same
// page) and onnxruntime-node (native) run the ONNX on the same tensors. Passes when, after the sigmoid,
// every output is within 1e-4 of LiteRT's and the masks (p ≥ 0.5) are equal; exits 1 otherwise.
// One allowance: onnxruntime-node on the photos with noise added is held to 2e-4 (measured up to 1.5e-4).
// Those inputs drive the logits to ±800, where float32 rounding alone is ~1e-4 in the logit, and native
// x86 kernels (FMA, NCHWc blocking) round differently from the two WASM runtimes, which agree to 3e-5.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { chromium } from 'playwright-core';
import { createServer } from 'vite';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../test/chromium.js';
import { ROOT } from '../../bench/paths.js';
import { nativeTolerance, parityInputs, PEOPLE_VARIANTS, NATIVE_NOISED_TOLERANCE, TOLERANCE } from './parity/cases.js';
import { compare, floatsFromBase64, sigmoid } from './parity/tensors.js';

const threadsAt = process.argv.indexOf('--threads');
const THREADS = threadsAt > 0 ? Number(process.argv[threadsAt + 1]) : 1;
const photos = (
  JSON.parse(readFileSync(join(ROOT, 'models/people/samples/manifest.json'), 'utf8')) as { images: { file: string; name: string }[] }
).images;
const INPUTS = parityInputs(photos);

async function main() {
  const server = await createServer({
    configFile: false,
    root: ROOT,
    logLevel: 'warn',
    server: {
      host: '127.0.0.1',
      port: 0,
      hmr: false,
      watch: null,
      headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' },
    },
    optimizeDeps: { noDiscovery: true, include: [], exclude: ['onnxruntime-web'] },
  });
  await server.listen();
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  let failed = false;
  try {
    const page = await browser.newPage();
    page.on('pageerror', (e) => console.error('page error:', e.message));
    await page.goto(`${server.resolvedUrls!.local[0]}models/people/parity/page.html`);
    await page.waitForFunction(() => (window as unknown as { parityReady?: boolean }).parityReady === true);
    console.log(
      `threads ${THREADS}; tolerance ${TOLERANCE} after the sigmoid (${NATIVE_NOISED_TOLERANCE} for onnxruntime-node on the noised photos)\n`,
    );
    console.log(
      '| model | input | person pixels | max diff, onnxruntime-web | max diff, onnxruntime-node | mask pixels that differ (web, node) |',
    );
    console.log('|---|---|---|---|---|---|');
    for (const v of PEOPLE_VARIANTS) {
      const results = (await page.evaluate((c) => (window as unknown as { parity: { run(c: unknown): Promise<unknown> } }).parity.run(c), {
        tflite: `/node_modules/@mediapipe/selfie_segmentation/${v.tflite}`,
        onnx: `/models/people/${v.name}/weights.onnx`,
        height: v.height,
        width: v.width,
        threads: THREADS,
        inputs: INPUTS,
      })) as { input: string; litert: string; web: string }[];
      const session = await ort.InferenceSession.create(join(ROOT, 'models', 'people', v.name, 'weights.onnx'), {
        graphOptimizationLevel: 'all',
        intraOpNumThreads: THREADS,
      });
      for (const [i, r] of results.entries()) {
        const original = floatsFromBase64(r.litert);
        const native = await session.run({
          [session.inputNames[0]!]: new ort.Tensor('float32', floatsFromBase64(r.input), [1, 3, v.height, v.width]),
        });
        const web = compare(original, sigmoid(floatsFromBase64(r.web)));
        const node = compare(original, sigmoid(native[session.outputNames[0]!]!.data as Float32Array));
        const person = original.filter((p) => p >= 0.5).length / original.length;
        const ok = web.maxDiff <= TOLERANCE && node.maxDiff <= nativeTolerance(INPUTS[i]!) && web.maskDiffs === 0 && node.maskDiffs === 0;
        failed ||= !ok;
        console.log(
          `| ${v.name} | ${INPUTS[i]!.label} | ${(100 * person).toFixed(1)}% | ${web.maxDiff.toExponential(2)} | ${node.maxDiff.toExponential(2)} | ${web.maskDiffs}, ${node.maskDiffs}${ok ? '' : ' FAIL'} |`,
        );
      }
      await session.release();
    }
  } finally {
    await browser.close();
    await server.close();
  }
  console.log(failed ? '\nFAIL: an output is off by more than the tolerance, or a mask differs' : '\nPASS');
  process.exitCode = failed ? 1 : 0;
}

await main();

// onnxruntime-web's WASM build, started early: the worker asks for it as soon as a load begins, so the
// runtime's 14 MB wasm is fetched and compiled while the model package downloads (or is read from the
// cache), instead of after it.
import type { OrtModule } from '../src/ort/ort-session.js';
import { prefetchBinary } from './binary-prefetch.js';
import { binaryProblem, rebundled } from './ort-from-url.js';
import { importOrt } from './ort-import.js';
import type { OrtFiles } from '../src/runtime/protocol.js';

export type OrtWasm = OrtModule & { env: { wasm: { numThreads: number; proxy: boolean } } };

// The smallest model onnxruntime accepts (Identity on float[1], opset 13): creating a session for it is
// the only public way to make onnxruntime-web initialise its wasm before the real model is at hand.
const WARM_UP_MODEL = new Uint8Array([
  8, 8, 58, 58, 10, 16, 10, 1, 120, 18, 1, 121, 34, 8, 73, 100, 101, 110, 116, 105, 116, 121, 18, 4, 119, 97, 114, 109, 90, 15, 10, 1, 120,
  18, 10, 10, 8, 8, 1, 18, 4, 10, 2, 8, 1, 98, 15, 10, 1, 121, 18, 10, 10, 8, 8, 1, 18, 4, 10, 2, 8, 1, 66, 4, 10, 0, 16, 13,
]);

let started: Promise<OrtWasm> | null = null;

/**
 * The WASM build with its runtime initialised. The first call starts the work and sets the thread count,
 * which onnxruntime-web fixes for the worker's life when its runtime initialises (a worker loads one
 * configuration); later calls share it. A failed warm-up is an error here only when the binary is
 * missing (RUNTIME_FILE_MISSING); else the real session's creation reports it, with the model's context.
 */
export function wasmRuntime(numThreads: number, files: OrtFiles | undefined): Promise<OrtWasm> {
  started ??= (async () => {
    // onnxruntime-web starts as soon as its module is here: its binary is asked for now, beside the module
    // (WebGPU's start waits for the model and the GPU device, and may not come: its binary is not fetched early).
    const stopPrefetch = files && !files.gzip ? prefetchBinary(files.binary) : undefined;
    try {
      const m = (await importOrt('wasm', files)) as OrtWasm;
      // Explicit: onnxruntime-web otherwise guesses, and silently drops to one thread without isolation. A
      // re-bundled module (Parcel) had its import.meta.url fixed at build time, so its threads cannot start:
      // one thread, which the load result reports.
      m.env.wasm.numThreads = rebundled(m) ? 1 : numThreads;
      m.env.wasm.proxy = false;
      try {
        const session = await m.InferenceSession.create(WARM_UP_MODEL, { executionProviders: ['wasm'] });
        await session.release();
        performance.mark('edgeseg:ort-wasm-ready');
      } catch {
        const missing = await binaryProblem(files, 'wasm');
        if (missing) throw missing;
      }
      return m;
    } finally {
      stopPrefetch?.();
    }
  })();
  return started;
}

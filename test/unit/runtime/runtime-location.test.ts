// Where the browser runtime's files are looked for: the options, the bundler's URLs, and the package's
// folder where a dev server's dependency optimizer moved the package without its files.
import { describe, expect, test } from 'vitest';
import { BackendError } from '../../../src/errors/index.js';
import { ORT_FILE_NAMES } from '../../../src/runtime/ort-file-names.js';
import { FIX, runtimeLocations, servedPackageFolders } from '../../../src/runtime/runtime-location.js';

const PAGE = 'http://localhost:5173/app/index.html';
const wasmFiles = (folder: string) => ({
  module: `${folder}ort.wasm.bundle.min.mjs`,
  binary: `${folder}ort-wasm-simd-threaded.wasm`,
  bytes: ORT_FILE_NAMES.wasm.bytes,
});
const bundledAt = (folder: string) => ({ worker: `${folder}segment-worker.js`, ort: wasmFiles(folder) });

/** Runs `run` on an engine with JSPI (`WebAssembly.Suspending`, Chromium and Firefox) or without (Safari 26). */
function withJspi<T>(jspi: boolean, run: () => T): T {
  const wasm = WebAssembly as unknown as Record<string, unknown>;
  const had = Object.getOwnPropertyDescriptor(wasm, 'Suspending');
  if (jspi) wasm['Suspending'] = function Suspending() {};
  else delete wasm['Suspending'];
  try {
    return run();
  } finally {
    delete wasm['Suspending'];
    if (had) Object.defineProperty(wasm, 'Suspending', had);
  }
}

describe('servedPackageFolders', () => {
  test.each([
    ['http://localhost:5173/node_modules/.vite/deps/segment-worker.js', 'http://localhost:5173/node_modules/edgeseg/dist/browser/'],
    [
      'http://localhost:5173/base/node_modules/.vite/deps/segment-worker.js?v=1a2b',
      'http://localhost:5173/base/node_modules/edgeseg/dist/browser/',
    ],
    [
      'http://localhost:5173/node_modules/.vite/deps_temp_3f2a/segment-worker.js',
      'http://localhost:5173/node_modules/edgeseg/dist/browser/',
    ],
    // Angular's dev server: its cache folder, outside any node_modules, and the project's node_modules both
    // under /@fs/ (it answers /node_modules/… with 404).
    [
      'http://localhost:4200/@fs/home/me/app/.angular/cache/21.0.0/app/vite/deps/segment-worker.js',
      'http://localhost:4200/@fs/home/me/app/node_modules/edgeseg/dist/browser/',
    ],
  ])('a file in an optimizer folder, %s: the package folder %s', (url, folder) => {
    expect(servedPackageFolders(url)).toEqual([folder]);
  });

  test.each([
    'http://localhost:5173/node_modules/edgeseg/dist/browser/segment-worker.js',
    'https://example.com/assets/segment-worker-3fa2.js',
    'https://example.com/deps.js',
    'not a url',
  ])('any other URL, %s: none', (url) => {
    expect(servedPackageFolders(url)).toEqual([]);
  });
});

describe('runtimeLocations', () => {
  test("the bundler's URLs alone, where they are not in an optimizer's folder, with the copy step as the fix", () => {
    const bundled = bundledAt('https://example.com/assets/');
    expect(runtimeLocations(bundled, {}, 'wasm', PAGE)).toEqual([{ ...bundled, fix: FIX.bundled }]);
    expect(FIX.bundled).toContain('npx edgeseg copy-runtime');
  });

  test("under Vite 5–7's dev server: the package's folder first, then the optimizer's URLs, both with the exclude fix", () => {
    const bundled = bundledAt('http://localhost:5173/node_modules/.vite/deps/');
    const served = 'http://localhost:5173/node_modules/edgeseg/dist/browser/';
    expect(runtimeLocations(bundled, {}, 'wasm', PAGE)).toEqual([
      { ...bundledAt(served), fix: FIX.optimizer },
      { ...bundled, fix: FIX.optimizer },
    ]);
    expect(FIX.optimizer).toContain("optimizeDeps.exclude: ['edgeseg']");
  });

  test('runtimeUrl, relative to the page: every file in that folder; for WebGPU, the JSPI build where the engine has JSPI', () => {
    expect(withJspi(true, () => runtimeLocations(bundledAt('https://example.com/'), { runtimeUrl: '/edgeseg' }, 'webgpu', PAGE))).toEqual([
      {
        worker: 'http://localhost:5173/edgeseg/segment-worker.js',
        ort: {
          module: 'http://localhost:5173/edgeseg/ort.jspi.bundle.min.mjs',
          binary: 'http://localhost:5173/edgeseg/ort-wasm-simd-threaded.jspi.wasm',
          bytes: 16_758_545,
        },
        fix: FIX.runtimeUrl('http://localhost:5173/edgeseg/'),
      },
    ]);
  });

  test('WebGPU on an engine without JSPI (Safari 26): the asyncify build, its binary gzip-compressed', () => {
    const [location] = withJspi(false, () =>
      runtimeLocations(bundledAt('https://example.com/'), { runtimeUrl: '/edgeseg' }, 'webgpu', PAGE),
    );
    expect(location?.ort).toEqual({
      module: 'http://localhost:5173/edgeseg/ort.webgpu.bundle.min.mjs',
      binary: 'http://localhost:5173/edgeseg/ort-wasm-simd-threaded.asyncify.wasm.gz',
      gzip: true,
      bytes: 26_781_914,
    });
  });

  test('runtimeUrl works where the bundle has no import.meta.url; workerUrl and wasmPaths win over it', () => {
    const gone = new BackendError('RUNTIME_URL_UNKNOWN', 'no import.meta.url');
    const [location] = runtimeLocations(gone, { runtimeUrl: 'https://cdn.test/e/', workerUrl: '/w.js' }, 'wasm', PAGE);
    expect(location).toMatchObject({ worker: 'http://localhost:5173/w.js', ort: wasmFiles('https://cdn.test/e/') });
  });

  test('without import.meta.url and without a place for both: the coded error', () => {
    const gone = new BackendError('RUNTIME_URL_UNKNOWN', 'no import.meta.url');
    expect(() => runtimeLocations(gone, {}, 'wasm', PAGE)).toThrow(gone);
    expect(() => runtimeLocations(gone, { workerUrl: '/w.js' }, 'wasm', PAGE)).toThrow(gone);
    expect(runtimeLocations(gone, { workerUrl: '/w.js', wasmPaths: '/ort/' }, 'wasm', PAGE)).toEqual([
      { worker: 'http://localhost:5173/w.js', ort: wasmFiles('http://localhost:5173/ort/'), fix: FIX.option('workerUrl') },
    ]);
  });

  test('workerUrl under an optimizer: kept at every place, with onnxruntime-web looked for in the package folder first', () => {
    const bundled = bundledAt('http://localhost:5173/node_modules/.vite/deps/');
    const locations = runtimeLocations(bundled, { workerUrl: '/mine/segment-worker.js' }, 'wasm', PAGE);
    expect(locations.map((l) => [l.worker, l.ort?.module])).toEqual([
      ['http://localhost:5173/mine/segment-worker.js', 'http://localhost:5173/node_modules/edgeseg/dist/browser/ort.wasm.bundle.min.mjs'],
      ['http://localhost:5173/mine/segment-worker.js', 'http://localhost:5173/node_modules/.vite/deps/ort.wasm.bundle.min.mjs'],
    ]);
    expect(locations[0]!.fix).toBe(FIX.option('workerUrl'));
  });

  test('the source tree: the bundler starts the worker; wasmPaths still applies', () => {
    expect(runtimeLocations(undefined, {}, 'wasm', PAGE)).toEqual([{ worker: undefined, ort: undefined, fix: FIX.option('wasmPaths') }]);
    expect(runtimeLocations(undefined, { wasmPaths: '/ort/' }, 'wasm', PAGE)[0]!.ort).toEqual(wasmFiles('http://localhost:5173/ort/'));
  });
});

// The framework's fix in a RUNTIME_FILE_MISSING: Angular's build gets the angular.json step, not the copy
// command that fits esbuild and Rollup; every other fix stays.
import { describe, expect, test } from 'vitest';
import { ANGULAR_ASSETS, ANGULAR_FIX, withFrameworkFix } from '../../../src/runtime/framework-fix.js';
import { FIX, runtimeLocations } from '../../../src/runtime/runtime-location.js';

const bundled = {
  worker: 'https://app.example/chunk-3F2A.js/../segment-worker.js',
  ort: { module: 'https://app.example/ort.wasm.bundle.min.mjs', binary: 'https://app.example/ort-wasm-simd-threaded.wasm' },
};

describe('withFrameworkFix', () => {
  test("in an Angular app, the bundled files' fix is the angular.json assets entry", () => {
    const [location] = withFrameworkFix(runtimeLocations(bundled, {}, 'wasm', 'https://app.example/'), true);
    expect(location?.fix).toBe(ANGULAR_FIX);
    expect(location?.fix).toContain(JSON.stringify(ANGULAR_ASSETS));
    expect(location?.worker).toBe(bundled.worker);
  });

  test('elsewhere, or where an option set the place, the fix stays', () => {
    expect(withFrameworkFix(runtimeLocations(bundled, {}, 'wasm', 'https://app.example/'), false)[0]?.fix).toBe(FIX.bundled);
    const [own] = withFrameworkFix(runtimeLocations(bundled, { workerUrl: '/w.js' }, 'wasm', 'https://app.example/'), true);
    expect(own?.fix).toBe(FIX.option('workerUrl'));
  });
});

// `edgeseg copy-runtime <dir>`: copies the browser runtime as shipped into an app's static folder.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { copyRuntime, copyRuntimeCommand, runtimeFileNames } from '../../../src/cli/copy-runtime.js';
import { UsageError } from '../../../src/cli/usage-error.js';

let work: string;
let build: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'edgeseg-copy-runtime-'));
  build = join(work, 'browser');
  mkdirSync(build);
  // A stand-in for dist/browser/: each file holds its own name, and the entry, which is not copied.
  for (const name of [...runtimeFileNames(), 'edgeseg.js']) writeFileSync(join(build, name), `contents of ${name}`);
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

describe('copyRuntime', () => {
  test("copies the worker, its map and every backend's onnxruntime-web files, byte for byte, into a folder it makes", () => {
    const target = join(work, 'public', 'edgeseg');
    expect(copyRuntime(target, build)).toEqual([
      'segment-worker.js',
      'segment-worker.js.map',
      'ort.wasm.bundle.min.mjs',
      'ort-wasm-simd-threaded.wasm',
      'ort.jspi.bundle.min.mjs',
      'ort-wasm-simd-threaded.jspi.wasm',
      'ort.webgpu.bundle.min.mjs',
      'ort-wasm-simd-threaded.asyncify.wasm.gz',
    ]);
    expect(readdirSync(target).sort()).toEqual([...runtimeFileNames()].sort());
    for (const name of runtimeFileNames()) expect(readFileSync(join(target, name), 'utf8')).toBe(`contents of ${name}`);
  });

  test("wasmOnly (`--wasm`, for edgeseg/wasm): the worker and WASM's files, none of WebGPU's", () => {
    const target = join(work, 'wasm-only');
    expect(copyRuntime(target, build, { wasmOnly: true })).toEqual([
      'segment-worker.js',
      'segment-worker.js.map',
      'ort.wasm.bundle.min.mjs',
      'ort-wasm-simd-threaded.wasm',
    ]);
    expect(readdirSync(target).sort()).toEqual([
      'ort-wasm-simd-threaded.wasm',
      'ort.wasm.bundle.min.mjs',
      'segment-worker.js',
      'segment-worker.js.map',
    ]);
  });

  test('a build that lacks a file: an error naming it, and nothing copied', () => {
    rmSync(join(build, 'ort-wasm-simd-threaded.wasm'));
    const target = join(work, 'out');
    expect(() => copyRuntime(target, build)).toThrow(/lacks ort-wasm-simd-threaded\.wasm/);
    expect(() => readdirSync(target)).toThrow();
  });
});

describe('copyRuntimeCommand', () => {
  test('no folder, an option, or two folders: a usage error that shows the form', () => {
    for (const args of [[], ['--out'], ['a', 'b']]) {
      expect(() => copyRuntimeCommand(args, () => undefined)).toThrow(UsageError);
      expect(() => copyRuntimeCommand(args, () => undefined)).toThrow('edgeseg copy-runtime <dir>');
    }
  });

  test('--help prints the command and the option to pass', () => {
    let printed = '';
    copyRuntimeCommand(['--help'], (s) => (printed += s));
    expect(printed).toContain('edgeseg copy-runtime <dir>');
    expect(printed).toContain("runtimeUrl: '/edgeseg/'");
  });
});

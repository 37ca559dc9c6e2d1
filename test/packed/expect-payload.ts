// The assertions of the packed-package tests: the page's payload is the command line's, pixel for pixel;
// a build carries edgeseg's runtime files as they were shipped.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ORT_FILE_NAMES } from '../../src/runtime/ort-file-names.js';
import { base64ToBytes, decodeMaskPng } from '../../src/payload/index.js';
import type { EngineName } from '../engines/index.js';
import { SUPPORT } from '../engines/support.js';
import { stringContaining } from '../helpers/matchers.js';
import { ROOT } from '../helpers/paths.js';
import type { PagePayload, PageResult } from './run-page.js';

export function expectCliPayload(result: PageResult, cli: PagePayload): void {
  expect(result.failed, `${result.failed?.message}\n${result.console.join('\n')}`).toBeUndefined();
  const payload = result.payload!;
  expect(payload.image).toEqual(cli.image);
  expect(payload.class_map).toEqual(cli.class_map);
  const page = decodeMaskPng(base64ToBytes(payload.segmentation_mask));
  const node = decodeMaskPng(base64ToBytes(cli.segmentation_mask));
  let differing = 0;
  for (let p = 0; p < node.classIds.length; p++) if (page.classIds[p] !== node.classIds[p]) differing++;
  expect(differing).toBe(0);
  // Not a mask of one class: the comparison means something.
  expect(new Set(node.classIds).size).toBeGreaterThan(1);
}

/**
 * A build carries edgeseg's worker and every onnxruntime-web file (WebGPU's too) byte for byte, under
 * whatever names the bundler gave them: copied, not re-bundled. `binariesOnly`: webpack's production
 * mode minifies every .js/.mjs asset it emits (harmless: the pages run), so only the WASM binaries are
 * compared byte for byte there.
 */
export function expectRuntimeFilesCopied(outDir: string, appDir: string, { binariesOnly = false } = {}): void {
  const shipped = join(appDir, 'node_modules', 'edgeseg', 'dist', 'browser');
  const outputs = builtFiles(outDir);
  const names = ['segment-worker.js', ...Object.values(ORT_FILE_NAMES).flatMap((f) => [f.module, f.binary])];
  for (const name of names.filter((n) => !binariesOnly || n.endsWith('.wasm'))) {
    const bytes = readFileSync(join(shipped, name));
    const copy = outputs.find((path) => statSync(path).size === bytes.length && readFileSync(path).equals(bytes));
    expect(copy, `${name} in ${outDir}`).toBeDefined();
  }
}

/** What toMatchObject expects of a page's result: a fallback's message may be a matcher. */
type ExpectedResult = Omit<Partial<PageResult>, 'fallbacks'> & { fallbacks?: Array<{ backend: string; code: string; message: unknown }> };

/**
 * Two WASM threads on a cross-origin isolated page in `engine`: the query that asks for them and what the
 * page reports. An engine without SharedArrayBuffer (WebKitGTK; test/engines/support.ts) cannot run them:
 * there the page gets one thread and the NO_SHARED_MEMORY note.
 */
export function twoThreads(engine: EngineName): { query: string; expected: ExpectedResult } {
  if (SUPPORT[engine].sharedArrayBuffer)
    return { query: 'threads=2', expected: { isolated: true, backend: 'wasm', numThreads: 2, fallbacks: [] } };
  return {
    query: 'threads=2',
    expected: {
      isolated: true,
      backend: 'wasm',
      numThreads: 1,
      fallbacks: [{ backend: 'wasm', code: 'NO_SHARED_MEMORY', message: stringContaining('no SharedArrayBuffer') }],
    },
  };
}

/** Every file of a build, as paths. */
export function builtFiles(outDir: string): string[] {
  return readdirSync(outDir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/** The start of the people model's weights as createVideoEffect's default carries them (base64, inline). */
export const INLINE_PEOPLE = readFileSync(join(ROOT, 'models', 'people', 'general', 'weights.onnx'))
  .toString('base64')
  .slice(0, 400);

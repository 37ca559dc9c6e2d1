// What an app written against the old, wider entries meets: a removed internal is a type error naming it,
// and a renamed option or class still compiles, its TSDoc `@deprecated` naming the replacement.
import { join } from 'node:path';
import ts from 'typescript';
import { beforeAll, expect, test } from 'vitest';
import { ROOT } from '../helpers/paths.js';

const APP = join(ROOT, 'test', 'unit', '__old-app__.ts');
const SOURCE = `
import { INJECT_FAULT, redact, errorFromResponse, throwIfAborted, SEARCH_EXTENSIONS, createSegmenter as browserSegmenter, AbortedError } from '../../src/index.js';
import { parseModelPackage, DEFAULT_MAX_PIXELS, createSegmenter } from '../../src/node/index.js';
export const seg = createSegmenter({ backend: 'wasm' });
export const ok = createSegmenter({ backends: ['wasm'] });
export const b = browserSegmenter;
export const aborted = (e: unknown) => e instanceof AbortedError && e.code === 'ABORTED';
`;

let diagnostics: readonly ts.Diagnostic[];
let service: ts.LanguageService;

beforeAll(() => {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  )!;
  const host: ts.LanguageServiceHost = {
    getScriptFileNames: () => [APP],
    getScriptVersion: () => '1',
    getScriptSnapshot: (name) => {
      const text = name === APP ? SOURCE : ts.sys.readFile(name);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => ROOT,
    getCompilationSettings: () => ({ ...config.options, noEmit: true }),
    getDefaultLibFileName: ts.getDefaultLibFilePath,
    fileExists: (name) => name === APP || ts.sys.fileExists(name),
    readFile: (name) => (name === APP ? SOURCE : ts.sys.readFile(name)),
  };
  service = ts.createLanguageService(host);
  diagnostics = service.getSemanticDiagnostics(APP);
}, 120_000);

const text = (d: ts.Diagnostic) => ts.flattenDiagnosticMessageText(d.messageText, '\n');

test('each removed internal is a type error that names it', () => {
  const removed = [
    'INJECT_FAULT',
    'redact',
    'errorFromResponse',
    'throwIfAborted',
    'SEARCH_EXTENSIONS',
    'parseModelPackage',
    'DEFAULT_MAX_PIXELS',
  ];
  // 2305: no exported member; 2724: the same, with TypeScript's guess at a similar name.
  const missing = (d: ts.Diagnostic) => d.code === 2305 || d.code === 2724;
  const errors = diagnostics.filter(missing).map(text);
  for (const name of removed)
    expect(
      errors.some((m) => m.includes(`no exported member`) && m.includes(`'${name}'`)),
      name,
    ).toBe(true);
  // And nothing else fails: the rest of the old app compiles.
  expect(diagnostics.filter((d) => !missing(d)).map(text)).toEqual([]);
});

test('the old backend option compiles, deprecated, its TSDoc naming backends', () => {
  const at = SOURCE.indexOf('backend:');
  const info = service.getQuickInfoAtPosition(APP, at)!;
  const tags = info.tags?.filter((t) => t.name === 'deprecated').map((t) => ts.displayPartsToString(t.text));
  expect(tags).toEqual([expect.stringContaining('backends: [name]')]);
});

test('the old abort error compiles, deprecated, its TSDoc naming EdgesegAbortError', () => {
  const at = SOURCE.indexOf('instanceof AbortedError') + 'instanceof '.length;
  const info = service.getQuickInfoAtPosition(APP, at)!;
  const tags = info.tags?.filter((t) => t.name === 'deprecated').map((t) => ts.displayPartsToString(t.text));
  // The value and the type of the name each carry the tag.
  expect(tags?.length).toBeGreaterThan(0);
  for (const tag of tags!) expect(tag).toContain('EdgesegAbortError');
});

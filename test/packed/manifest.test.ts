// The manifest as published: no lifecycle script of edgeseg's own runs on a user's install (npm 12 blocks
// them and lists the package), and the native peers take a range whose oldest version is the one the tests
// run (test/packed/node-newest.test.ts runs the newest Node on it).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, test } from 'vitest';
import { ROOT } from '../helpers/paths.js';

interface Manifest {
  scripts?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  engines?: Record<string, string>;
}

const { appDir } = inject('packed');
const published = JSON.parse(readFileSync(join(appDir, 'node_modules', 'edgeseg', 'package.json'), 'utf8')) as Manifest;
const installedVersion = (name: string) =>
  (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

describe('the published package.json', () => {
  test('has no script that npm runs when the package is installed', () => {
    const lifecycle = ['preinstall', 'install', 'postinstall', 'prepublish', 'preprepare', 'prepare', 'postprepare'];
    expect(Object.keys(published.scripts ?? {}).filter((name) => lifecycle.includes(name))).toEqual([]);
  });

  test.each(['onnxruntime-node', 'onnxruntime-web'])('takes %s from the version the tests run up to the next major', (name) => {
    // `^x.y.z`, as `npm install onnxruntime-node` saves it: a newer minor meets no peer conflict.
    expect(published.peerDependencies?.[name]).toBe(`^${installedVersion(name)}`);
  });

  test('says which Node versions are supported: 22 and later (20 is past its end of life)', () => {
    expect(published.engines?.['node']).toBe('>=22');
  });
});

// The packed package's type declarations, checked by tsc (TypeScript 7.0 and 5.9) with skipLibCheck off in a
// fresh app, under moduleResolution bundler, node16 and nodenext, for `edgeseg` and `edgeseg/node` (each with a bundled model
// imported from `edgeseg/models/<name>`), with the optional
// peers that the README names (onnxruntime-node and sharp for the Node entry) installed; and no
// declaration names a package that a user is not told to install.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { ROOT } from '../helpers/paths.js';
import { makeToolApp } from './tool-app.js';

const { tarball } = inject('packed');
// The optional peers and what their own declarations import, as npm lays them out: linked from this
// repository's install, which pins the peers' versions (an install of onnxruntime-node runs a download script).
const PEERS = ['onnxruntime-node', 'onnxruntime-common', 'onnxruntime-web', 'sharp', '@img/colour'];
/**
 * TypeScript as a new project installs it today (7.0, npm's `latest`: the native compiler) and the 5.9 that
 * this repository compiles the declarations with (and many projects still run), each with its @types/node.
 */
const TYPESCRIPTS = { '7.0': { typescript: '7.0.2', '@types/node': '26.6.11' }, '5.9': { typescript: '5.9.3', '@types/node': '20.19.43' } };
type TypescriptVersion = keyof typeof TYPESCRIPTS;
const apps = {} as Record<TypescriptVersion, string>;

beforeAll(() => {
  for (const [version, dependencies] of Object.entries(TYPESCRIPTS) as Array<[TypescriptVersion, Record<string, string>]>) {
    const appDir = (apps[version] = makeToolApp({ name: `types-ts${version}`, dependencies, tarball, files: {} }));
    for (const name of PEERS) {
      mkdirSync(join(appDir, 'node_modules', name, '..'), { recursive: true });
      execFileSync('cp', ['-al', join(ROOT, 'node_modules', name), join(appDir, 'node_modules', name)]);
    }
  }
});
afterAll(() => {
  for (const appDir of Object.values(apps)) rmSync(appDir, { recursive: true, force: true });
});

const USES = {
  edgeseg: `import { createSegmenter, type BundledModel, type SegmentationPayload, type SegmenterOptions } from 'edgeseg';
import people from 'edgeseg/models/people';
const options: SegmenterOptions = { model: '/model/', runtimeUrl: '/edgeseg/', backends: ['wasm'] };
const bundled: BundledModel = people;
export async function mask(image: Blob, ofPeople: boolean): Promise<SegmentationPayload> {
  const seg = await createSegmenter(ofPeople ? { ...options, model: bundled } : options);
  return seg.segment(image);
}
`,
  'edgeseg/node': `import { createSegmenter } from 'edgeseg/node';
import { peopleLandscape } from 'edgeseg/models/people-landscape';
export async function mask(path: string): Promise<string> {
  const seg = await createSegmenter({ model: 'people' });
  const other = await createSegmenter({ model: peopleLandscape });
  return (await seg.segment(path)).segmentation_mask + (await other.segment(path)).segmentation_mask;
}
`,
};

const SETTINGS = {
  bundler: { module: 'esnext', moduleResolution: 'bundler' },
  node16: { module: 'node16', moduleResolution: 'node16' },
  nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
};

describe.each(
  (Object.keys(TYPESCRIPTS) as TypescriptVersion[]).flatMap((version) =>
    (Object.keys(SETTINGS) as Array<keyof typeof SETTINGS>).map((resolution) => [version, resolution] as const),
  ),
)('TypeScript %s, moduleResolution %s, skipLibCheck false', (version, resolution) => {
  test.each(Object.keys(USES) as Array<keyof typeof USES>)("import '%s' type-checks", (entry) => {
    const appDir = apps[version];
    const dir = `${resolution}-${entry.replace('/', '-')}`;
    writeFileSync(join(appDir, `${dir}.mts`), USES[entry]);
    writeFileSync(
      join(appDir, `tsconfig.${dir}.json`),
      JSON.stringify({
        compilerOptions: {
          ...SETTINGS[resolution],
          target: 'es2022',
          lib: entry === 'edgeseg' ? ['es2022', 'dom', 'dom.iterable'] : ['es2022'],
          types: entry === 'edgeseg' ? [] : ['node'],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
        },
        files: [`${dir}.mts`],
      }),
    );
    let output = '';
    try {
      execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', `tsconfig.${dir}.json`], { cwd: appDir, stdio: 'pipe' });
    } catch (error) {
      output = String((error as { stdout?: Buffer }).stdout ?? error);
    }
    expect(output).toBe('');
  });
});

test("the declarations import only edgeseg's dependencies, Node's built-ins and the peers the README names for the Node entry", () => {
  const shipped = join(apps['7.0'], 'node_modules', 'edgeseg', 'dist');
  const named = new Set<string>();
  for (const entry of readdirSync(shipped, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.d.ts')) continue;
    // Comments aside: their examples (`import people from 'edgeseg/models/people'`) import nothing.
    const text = readFileSync(join(entry.parentPath, entry.name), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    for (const [, spec] of text.matchAll(/(?:from\s+|import\()\s*['"]([^'"./][^'"]*)['"]/g))
      named.add(spec!.startsWith('node:') ? 'node:' : spec!);
  }
  expect([...named].sort()).toEqual(['comlink', 'node:', 'onnxruntime-node', 'sharp']);
});

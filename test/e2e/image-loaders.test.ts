// Defence in depth behind the format allow-list: the command line and the local platform block every
// libvips loader but the allow-list's in their processes. Each case runs in a fresh Node process (the
// block is libvips's process-wide switch), on the built package, and decodes straight through sharp, as a
// gap in the allow-list check would.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, expect, test } from 'vitest';
import { IMAGE_FORMATS } from '../../src/decode/image-header.js';
import { SAMPLE_FILES } from '../fixtures/bad-images.js';
import { ensureBuilt } from '../helpers/built-cli.js';
import { parseJson } from '../helpers/json.js';
import { ROOT } from '../helpers/paths.js';

const run = promisify(execFile);
const SAMPLES = Object.fromEntries(IMAGE_FORMATS.map((format) => [format, SAMPLE_FILES[format]]));

beforeAll(() => ensureBuilt(), 120_000);

/**
 * Decodes each allow-listed sample and an SVG (librsvg: the one loader beyond the allow-list in sharp's
 * prebuilt libvips; a system libvips may add ImageMagick, PDF and more); 'ok' or the error.
 */
async function decodeAll(setup: string): Promise<Record<string, string>> {
  const script = `
    import { readFileSync } from 'node:fs';
    const dist = ${JSON.stringify(join(ROOT, 'dist'))};
    const { sharp } = await import(dist + '/src/node/native-modules.js');
    ${setup}
    const inputs = {
      ...Object.fromEntries(${JSON.stringify(Object.entries(SAMPLES))}.map(([f, file]) => [f, readFileSync(${JSON.stringify(join(ROOT, 'test', 'fixtures', 'images'))} + '/' + file)])),
      svg: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8"/></svg>'),
    };
    const out = {};
    for (const [name, bytes] of Object.entries(inputs)) {
      try {
        const { info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
        out[name] = info.width > 0 ? 'ok' : 'empty';
      } catch (error) {
        out[name] = error.message;
      }
    }
    console.log(JSON.stringify(out));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
  return parseJson<Record<string, string>>(stdout);
}

const allowed = Object.fromEntries(IMAGE_FORMATS.map((f) => [f, 'ok']));
const refused = 'Input buffer contains unsupported image format';

test('without the block, libvips decodes SVG (what the block is for)', async () => {
  expect(await decodeAll('')).toEqual({ ...allowed, svg: 'ok' });
}, 60_000);

test('the command line: after restrictImageLoaders(), the allow-list decodes and the other loaders are unreachable', async () => {
  const setup = `(await import(dist + '/src/cli/cli.js')).restrictImageLoaders();`;
  expect(await decodeAll(setup)).toEqual({ ...allowed, svg: refused });
}, 60_000);

test('the local platform blocks them in its process when it opens', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'edgeseg-loaders-'));
  try {
    const setup = `await (await import(dist + '/server/start.js')).openPlatform({ dataDir: ${JSON.stringify(dataDir)} });`;
    expect(await decodeAll(setup)).toEqual({ ...allowed, svg: refused });
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}, 60_000);

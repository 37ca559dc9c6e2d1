// onnxruntime from the oldest version that edgeseg's peer dependencies allow to the newest published. The
// repository's own tests run the oldest (its devDependencies pin the peer range's floor); this app installs
// the packed package beside the newest onnxruntime-node and onnxruntime-web, as `npm install` gives them
// today (onnxruntime-node's download of CUDA parts skipped, as docs/node.md says): the command line gives,
// on both of Node's backends, the payload that the oldest gives. The install is made once and cached.
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { base64ToBytes, decodeMaskPng } from '../../src/payload/index.js';
import { runCli } from '../helpers/built-cli.js';
import { ROOT } from '../helpers/paths.js';
import { makeToolApp } from './tool-app.js';

/** The newest onnxruntime on the npm registry (`npm view onnxruntime-node dist-tags`; onnxruntime-web's is the same). */
const NEWEST_ONNXRUNTIME = '1.31.1';
const PHOTO = join(ROOT, 'models', 'people', 'samples', 'images', 'astronaut.png');

const versionIn = (modules: string, name: string) =>
  (JSON.parse(readFileSync(join(modules, name, 'package.json'), 'utf8')) as { version: string }).version;
const peers = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> })
  .peerDependencies;

const { tarball } = inject('packed');
const run = promisify(execFile);
let appDir: string;

const installSetting = process.env['ONNXRUNTIME_NODE_INSTALL'];
beforeAll(() => {
  process.env['ONNXRUNTIME_NODE_INSTALL'] = 'skip';
  appDir = makeToolApp({
    name: 'onnxruntime-newest',
    dependencies: {
      'onnxruntime-node': NEWEST_ONNXRUNTIME,
      'onnxruntime-web': NEWEST_ONNXRUNTIME,
      sharp: versionIn(join(ROOT, 'node_modules'), 'sharp'),
    },
    files: {},
    tarball,
  });
});
afterAll(() => {
  if (installSetting === undefined) delete process.env['ONNXRUNTIME_NODE_INSTALL'];
  else process.env['ONNXRUNTIME_NODE_INSTALL'] = installSetting;
  if (appDir) rmSync(appDir, { recursive: true, force: true });
});

describe(`onnxruntime ${peers['onnxruntime-node']} (the peers' floor) and ${NEWEST_ONNXRUNTIME} (the newest published)`, () => {
  test("the repository's tests run the oldest version the peers allow, and the app the newest", () => {
    for (const name of ['onnxruntime-node', 'onnxruntime-web']) {
      expect(peers[name]).toBe(`^${versionIn(join(ROOT, 'node_modules'), name)}`);
      expect(versionIn(join(appDir, 'node_modules'), name)).toBe(NEWEST_ONNXRUNTIME);
    }
  });

  test.each(['native', 'wasm'])(
    "the command line on the %s backend gives, on the newest onnxruntime, the oldest's payload for the people model",
    async (backend) => {
      const args = ['segment', PHOTO, '--model', 'people', '--backend', backend];
      const [newest, oldest] = await Promise.all([
        run(process.execPath, [join(appDir, 'node_modules', 'edgeseg', 'bin', 'edgeseg.js'), ...args], {
          cwd: appDir,
          env: { ...process.env, npm_command: '' },
          maxBuffer: 64 << 20,
        }).then(({ stdout }) => JSON.parse(stdout) as { segmentation_mask: string }),
        runCli(args).then(({ code, stdout, stderr }) => {
          if (code !== 0) throw new Error(`edgeseg ${args.join(' ')} exited with ${code}: ${stderr}`);
          return JSON.parse(stdout.toString()) as { segmentation_mask: string };
        }),
      ]);
      expect(newest).toEqual(oldest);
      // A person is found: the comparison means something.
      expect(new Set(decodeMaskPng(base64ToBytes(newest.segmentation_mask)).classIds)).toEqual(new Set([0, 1]));
    },
  );
});

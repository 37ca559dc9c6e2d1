// The packed package in a web app: no native module installed, and the Node side says what to install.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, test } from 'vitest';
import { parseJson } from '../helpers/json.js';

const { appDir, installed } = inject('packed');
const run = promisify(execFile);
const INSTALL = 'run `npm install "onnxruntime-node@^1.30.0" "sharp@^0.35.5"`';

describe('the packed package installed into a web app', () => {
  test('installs edgeseg and its two small dependencies, no native module and no onnxruntime', () => {
    expect(installed.packages.sort()).toEqual(['comlink', 'edgeseg', 'fflate']);
  });

  test('importing edgeseg/node there is NATIVE_MODULE_MISSING, naming the command to run', async () => {
    const script =
      "import('edgeseg/node').then(() => console.log('loaded'), (e) => console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message })))";
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: appDir });
    const error = parseJson<{ name: string; code: string; message: string }>(stdout);
    expect(error).toMatchObject({ name: 'BackendError', code: 'NATIVE_MODULE_MISSING' });
    expect(error.message).toContain('need onnxruntime-node and sharp');
    expect(error.message).toContain(INSTALL);
  });

  test('the command line there, outside npx, exits 1 with the same sentence', async () => {
    const failure = await run(process.execPath, [join(appDir, 'node_modules', 'edgeseg', 'bin', 'edgeseg.js'), 'info'], {
      cwd: appDir,
      env: { ...process.env, npm_command: '' },
    }).catch((e: { code: number; stderr: string }) => e);
    expect(failure).toMatchObject({ code: 1 });
    expect((failure as { stderr: string }).stderr).toContain(INSTALL);
  });
});

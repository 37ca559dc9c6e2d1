// Runs Debian's Python (with Pillow) from a test: the third-party reader the payload must satisfy.
import { spawnSync } from 'node:child_process';

export const PYTHON = process.env.EDGESEG_PYTHON ?? '/usr/bin/python3';

export function runPython(code: string, input?: Uint8Array): Buffer {
  const result = spawnSync(PYTHON, ['-c', code], { input, maxBuffer: 256 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`python failed: ${result.stderr.toString()}`);
  return result.stdout;
}

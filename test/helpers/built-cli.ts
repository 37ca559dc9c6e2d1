// Runs the built `edgeseg` command as a user would (node bin/edgeseg.js), compiling the library first if needed.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './paths.js';

/** Builds the library (tsc and the browser build) when dist/ is missing either or is older than any source file (src/, and the workers' own under workers/). */
export function ensureBuilt(): void {
  const built = join(ROOT, 'dist', 'src', 'cli', 'cli.js');
  const browser = join(ROOT, 'dist', 'browser', 'edgeseg.js');
  const source = Math.max(newest(join(ROOT, 'src')), newest(join(ROOT, 'workers')));
  if (existsSync(built) && existsSync(browser) && source <= Math.min(statSync(built).mtimeMs, statSync(browser).mtimeMs)) return;
  execFileSync('npm', ['run', 'build:lib'], { cwd: ROOT, stdio: 'ignore' });
}

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

export interface RunResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/** `onSpawn` gets the process, for a test that signals it; `uid`/`gid` run it as another user (the test being root). */
export function runCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; onSpawn?: (child: ChildProcess) => void; uid?: number; gid?: number } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'edgeseg.js'), ...args], {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, ...options.env },
      ...(options.uid === undefined ? {} : { uid: options.uid }),
      ...(options.gid === undefined ? {} : { gid: options.gid }),
    });
    options.onSpawn?.(child);
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr: err }));
  });
}

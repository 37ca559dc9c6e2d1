// Runs the built `edgeseg` command as a user would (node bin/edgeseg.js), compiling the library first if needed.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './paths.js';

export function ensureBuilt(): void {
  if (!existsSync(join(ROOT, 'dist', 'src', 'node', 'cli.js'))) execFileSync('npm', ['run', 'build:lib'], { cwd: ROOT, stdio: 'ignore' });
}

export interface RunResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

export function runCli(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'edgeseg.js'), ...args], { cwd: options.cwd ?? ROOT, env: { ...process.env, ...options.env } });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr: err }));
  });
}

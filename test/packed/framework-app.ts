// The framework tests' common part: a fresh app on a pinned framework (tool-app.ts) whose page runs the test
// app's script (app/main.js) as the framework's users load a client script, the model and image among the
// framework's static files; its dev server, build and production server run through the framework's own
// command line from the cached install, as a user runs them. Each test then opens the page in Chromium.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { ROOT } from '../helpers/paths.js';
import { FRAMEWORKS, NODE_NEEDED, type FrameworkName } from './framework-versions.js';
import type { PackedApp } from './global-setup.js';
import { makeToolApp, newestNode } from './tool-app.js';
import { expectCliPayload, twoThreads } from './expect-payload.js';
import { runPage, type PagePayload, type PageResult } from './run-page.js';

/** The test app's script (imports `edgeseg` by name, segments public/image.jpg, publishes the outcome). */
export const MAIN_JS = readFileSync(join(ROOT, 'test', 'packed', 'app', 'main.js'), 'utf8');

/** COOP/COEP: what makes a page cross-origin isolated, so that onnxruntime-web may run WASM threads. */
export const ISOLATION_HEADERS = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

/** What a framework's command lines are told: no telemetry, no browser, no prompt. */
const QUIET_ENV = {
  ASTRO_TELEMETRY_DISABLED: '1',
  NUXT_TELEMETRY_DISABLED: '1',
  NEXT_TELEMETRY_DISABLED: '1',
  NG_CLI_ANALYTICS: 'false',
  BROWSER: 'none',
  FORCE_COLOR: '0',
};

/**
 * The environment of a framework's command line: this process's, without what Vitest sets for itself
 * (`VITEST`, `VITEST_*`, `NODE_ENV=test`), which a user's shell has not: Astro 7's dev server serves no
 * page where it sees `VITEST`, and `NODE_ENV=test` makes a Vite build a development one.
 */
function toolEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const own = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_ENV' && !/^VITEST($|_)/.test(name)));
  return { ...own, ...QUIET_ENV, ...env };
}

/** The Node that runs each app's command lines, where it is not the one running the tests (see NODE_NEEDED). */
const appNode = new Map<string, string>();

/** The Node binary that runs `appDir`'s command lines. */
function nodeOf(appDir: string): string {
  return appNode.get(appDir) ?? process.execPath;
}

/**
 * Makes the app: `files` plus the model and image in `staticDir` (the framework's public folder). A framework
 * that needs a newer Node than the tests run on gets the newest one for its command lines.
 */
export function makeFrameworkApp(packed: PackedApp, framework: FrameworkName, files: Record<string, string>, staticDir = 'public'): string {
  const needed = NODE_NEEDED[framework];
  const node = needed !== undefined && Number(process.versions.node.split('.')[0]) < needed ? newestNode() : undefined;
  const appDir = makeToolApp({
    name: framework,
    dependencies: FRAMEWORKS[framework],
    files,
    tarball: packed.tarball,
    copy: {
      [`${staticDir}/model`]: join(packed.appDir, 'public', 'model'),
      [`${staticDir}/image.jpg`]: join(packed.appDir, 'public', 'image.jpg'),
    },
  });
  if (node) appNode.set(appDir, node);
  return appDir;
}

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs a framework's command line (`node <bin> args…`, on the app's Node) in the app to its end; its output, for a failure's message. */
export async function runTool(appDir: string, bin: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  try {
    const { stdout, stderr } = await promisify(execFile)(nodeOf(appDir), [join(appDir, 'node_modules', bin), ...args], {
      cwd: appDir,
      env: toolEnv(env),
      maxBuffer: 64 << 20,
    });
    return `${stdout}${stderr}`;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${bin} ${args.join(' ')} failed:\n${stdout}${stderr}`, { cause: error });
  }
}

export interface RunningServer {
  url: string;
  /** What the server printed so far. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts a framework's server (`node <bin> args…`, or `node <script>` where bin is a path in the app) and
 * waits until `url` answers. The server runs in its own process group, so that stop() ends its workers too.
 */
export async function startTool(
  appDir: string,
  bin: string,
  args: string[],
  url: string,
  { env = {}, timeoutMs = 240_000 }: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<RunningServer> {
  const script = bin.startsWith('.') ? join(appDir, bin) : join(appDir, 'node_modules', bin);
  const child: ChildProcess = spawn(nodeOf(appDir), [script, ...args], {
    cwd: appDir,
    env: toolEnv(env),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  child.stdout!.on('data', (chunk: Buffer) => void (printed += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => void (printed += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // Gone already.
      }
      const killed = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }, 5_000);
      await exited;
      clearTimeout(killed);
    }
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${bin} ${args.join(' ')} exited with ${child.exitCode}:\n${printed}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(60_000) });
      await response.body?.cancel();
      if (response.status < 500) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${bin} ${args.join(' ')} did not answer ${url} in ${timeoutMs} ms:\n${printed}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { url, output: () => printed, stop };
}

/** Opens `url` (with `?threads=2`) in Chromium: the page is cross-origin isolated, runs WASM on two threads, and gets the command line's payload. */
export async function expectSegmentsOnTwoThreads(url: string, cliPayload: PagePayload): Promise<PageResult> {
  const { query, expected } = twoThreads('chromium');
  const result = await runPage(`${url}${url.includes('?') ? '&' : '?'}${query}`);
  expectCliPayload(result, cliPayload);
  expect(result).toMatchObject(expected);
  return result;
}

/**
 * Starts a framework's server on a free port (`args` and `env` are given the port), checks its page as
 * expectSegmentsOnTwoThreads does, and stops the server.
 */
export async function expectServedPageSegments(
  appDir: string,
  bin: string,
  args: (port: number) => string[],
  cliPayload: PagePayload,
  env: (port: number) => Record<string, string> = () => ({}),
): Promise<void> {
  const port = await freePort();
  const server = await startTool(appDir, bin, args(port), `http://127.0.0.1:${port}/`, { env: env(port) });
  try {
    await expectSegmentsOnTwoThreads(server.url, cliPayload);
  } finally {
    await server.stop();
  }
}

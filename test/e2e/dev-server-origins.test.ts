// The dev server of `npm start` against a page on another loopback origin, in Chromium: it reads no file
// of the repository or of the data directory (the key, the signing secret), while the demo's own page
// still loads what it needs.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../chromium.js';
import { parseJson, type ErrorAnswer } from '../helpers/json.js';
import { ROOT } from '../helpers/paths.js';
import { rawHttp, rawSocket } from '../helpers/raw-http.js';

let browser: Browser;
let dataDir: string;
let dev: ViteDevServer;
let devUrl: string;
let foreign: Server;
let foreignPort: number;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'edgeseg-dev-origins-'));
  process.env.EDGESEG_DATA_DIR = dataDir;
  dev = await createServer({ configFile: join(ROOT, 'vite.config.ts'), server: { port: 0, strictPort: false }, logLevel: 'error' });
  await dev.listen();
  devUrl = dev.resolvedUrls!.local[0]!.replace(/\/$/, '');
  // Another local page: what any other local dev server, or a page a local tool serves, is.
  foreign = createHttpServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>other</title>'));
  await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
  foreignPort = (foreign.address() as AddressInfo).port;
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
});

afterAll(async () => {
  await browser?.close();
  await dev?.close();
  foreign?.closeAllConnections();
  await new Promise<void>((resolve) => (foreign ? foreign.close(() => resolve()) : resolve()));
  delete process.env.EDGESEG_DATA_DIR;
  await rm(dataDir, { recursive: true, force: true });
});

/** Paths of the repository and the data directory as the dev server would serve them. */
const secretPaths = () => [
  '/main.ts',
  '/index.html',
  '/',
  '/@vite/client',
  '/@fs' + join(ROOT, 'package.json'),
  '/@fs' + join(ROOT, 'vite.config.ts'),
  '/@fs' + join(ROOT, 'src', 'index.ts'),
  '/@fs' + join(dataDir, 'platform.json'),
  '/@fs' + join(dataDir, 'signing-key'),
];

interface Attempt {
  path: string;
  read: string | null;
}

/** What a page at `pageOrigin` reads of each path, by fetch (CORS) and as a module script. */
async function readFrom(pageOrigin: string, paths: string[]): Promise<Attempt[]> {
  const page = await browser.newPage();
  try {
    await page.goto(`${pageOrigin}/`);
    return await page.evaluate(
      async ({ base, paths }) => {
        const out: { path: string; read: string | null }[] = [];
        for (const path of paths) {
          let read: string | null = null;
          try {
            const answer = await fetch(base + path);
            if (answer.ok) read = await answer.text();
          } catch {
            // refused: what the page must get
          }
          out.push({ path, read });
        }
        return out;
      },
      { base: devUrl, paths },
    );
  } finally {
    await page.close();
  }
}

describe('a page on another loopback origin', () => {
  test('reads no file of the repository or of the data directory, the key and the signing secret included', async () => {
    const key = JSON.parse(await readFile(join(dataDir, 'platform.json'), 'utf8')) as { workspaces: { apiKey: string }[] };
    const secret = (await readFile(join(dataDir, 'signing-key'), 'utf8')).trim();
    expect(key.workspaces[0]!.apiKey.length).toBeGreaterThan(20);
    // Same site as the dev server (localhost, another port), and another loopback address.
    for (const origin of [`http://localhost:${foreignPort}`, `http://127.0.0.1:${foreignPort}`]) {
      const attempts = await readFrom(origin, secretPaths());
      expect(attempts.filter((a) => a.read !== null).map((a) => a.path)).toEqual([]);
      // Nor as a module script, which needs CORS too, nor the key route.
      const page = await browser.newPage();
      await page.goto(`${origin}/`);
      const imported = await page.evaluate(
        async (url) => {
          try {
            await import(/* @vite-ignore */ url);
            return 'imported';
          } catch {
            return 'refused';
          }
        },
        `${devUrl}/@fs${join(ROOT, 'src', 'index.ts')}`,
      );
      expect(imported).toBe('refused');
      const keyAnswer = await page.evaluate(
        (url) =>
          fetch(url).then(
            (r) => r.text(),
            () => 'refused',
          ),
        `${devUrl}/api/local-key`,
      );
      expect(keyAnswer).not.toContain(key.workspaces[0]!.apiKey);
      await page.close();
    }
    // The server's own answers to such a page (as the browser sent them): 403 with a code, no file bytes.
    for (const site of ['same-site', 'cross-site']) {
      const answer = await rawHttp(devUrl, {
        path: '/@fs' + join(ROOT, 'package.json'),
        headers: { 'sec-fetch-site': site, 'sec-fetch-mode': 'cors', origin: `http://localhost:${foreignPort}` },
      });
      expect(answer.status).toBe(403);
      expect(parseJson<ErrorAnswer>(answer.body).error.code).toBe('OriginNotAllowed');
      expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    }
    // Not even a page of the dev server's own origin, nor a tool, gets the data directory or the repository's root files.
    for (const path of [
      '/@fs' + join(dataDir, 'platform.json'),
      '/@fs' + join(dataDir, 'signing-key'),
      '/@fs' + join(ROOT, 'package.json'),
    ]) {
      const answer = await rawHttp(devUrl, { path });
      expect(answer.status).not.toBe(200);
      expect(answer.body).not.toContain(key.workspaces[0]!.apiKey);
      expect(answer.body).not.toContain(secret);
    }
  });

  test("a preflight for /api from a foreign origin is the platform's 403; a loopback page's is granted", async () => {
    const preflight = (origin: string) =>
      rawHttp(devUrl, {
        method: 'OPTIONS',
        path: '/api/edgeseg-demo/settings',
        headers: { origin, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type' },
      });
    const foreignAnswer = await preflight('https://attacker.example');
    expect(foreignAnswer.status).toBe(403);
    expect(parseJson<ErrorAnswer>(foreignAnswer.body).error.code).toBe('OriginNotAllowed');
    const loopback = await preflight(`http://localhost:${foreignPort}`);
    expect(loopback.status).toBe(204);
    expect(loopback.headers['access-control-allow-origin']).toBe(`http://localhost:${foreignPort}`);
  });

  test('two Host headers are refused (400), on the platform and on the files', async () => {
    for (const path of ['/api/local-key', '/main.ts']) {
      const { status, body } = await rawSocket(
        devUrl,
        `GET ${path} HTTP/1.1\r\nHost: ${new URL(devUrl).host}\r\nHost: attacker.example\r\nConnection: close\r\n\r\n`,
      );
      expect(status).toMatch(/^HTTP\/1\.1 400 /);
      expect(parseJson<ErrorAnswer>(body).error.code).toBe('MalformedRequest');
    }
  });
});

describe("the demo's own page", () => {
  test('loads its modules, edgeseg, the worker and the key, and gets ready', async () => {
    const page = await browser.newPage();
    await page.goto(`${devUrl}/`);
    const statuses = await page.evaluate(
      async (paths) => Promise.all(paths.map((p) => fetch(p).then((r) => r.status))),
      ['/main.ts', '/@fs' + join(ROOT, 'src', 'index.ts'), '/@fs' + join(ROOT, 'workers', 'segment-worker.ts'), '/api/local-key'],
    );
    expect(statuses).toEqual([200, 200, 200, 200]);
    await page.waitForFunction(() => (window as unknown as { edgesegDemo?: { ready: boolean } }).edgesegDemo?.ready === true, null, {
      timeout: 120_000,
    });
    await page.close();
  });
});

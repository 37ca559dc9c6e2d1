// The dev server of `npm start` against a page on another loopback origin, in Chromium: it reads no file
// of the repository or of the data directory (the key, the signing secret), while the demo's own page
// still loads what it needs.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
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

describe('dev endpoints, pages of node_modules and links out of the served folders', () => {
  /** A top-level navigation as a browser sends it, from a page of `site` (or typed, `none`). */
  const navigation = (site: string) => ({ 'sec-fetch-site': site, 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' });
  const ownFetch = { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty' };
  /** The error's code, or what came instead (a file's first bytes). */
  const code = (body: string) => {
    try {
      return parseJson<ErrorAnswer>(body).error.code;
    } catch {
      return body.slice(0, 40);
    }
  };
  // No such file: were the request let through, the editor would have nothing to open.
  const openInEditor = `/__open-in-editor?file=${encodeURIComponent(join(ROOT, 'no-such-file-to-open.ts'))}`;

  test("a navigation from another origin, or a typed address, gets the demo's pages and no dev endpoint", async () => {
    const endpoints = [openInEditor, '/main.ts', '/@vite/client', '/@fs' + join(ROOT, 'src', 'index.ts')];
    for (const site of ['cross-site', 'same-site', 'none']) {
      for (const path of endpoints) {
        const answer = await rawHttp(devUrl, { path, headers: navigation(site) });
        expect([path, site, answer.status, code(answer.body)]).toEqual([path, site, 403, 'OriginNotAllowed']);
      }
      for (const path of ['/', '/index.html', '/?compositor=webgl2']) {
        const answer = await rawHttp(devUrl, { path, headers: navigation(site) });
        expect([path, site, answer.status, answer.headers['content-type']]).toEqual([path, site, 200, 'text/html']);
      }
    }
    // A browser without fetch metadata: its Referer names the page that linked.
    const linked = await rawHttp(devUrl, { path: openInEditor, headers: { referer: `http://localhost:${foreignPort}/` } });
    expect([linked.status, code(linked.body)]).toEqual([403, 'OriginNotAllowed']);
    expect((await rawHttp(devUrl, { path: '/', headers: { referer: `http://localhost:${foreignPort}/` } })).status).toBe(200);
    // A tool (no page at all) gets the files, but opens nothing in the editor.
    expect((await rawHttp(devUrl, { path: openInEditor })).status).toBe(403);
    expect((await rawHttp(devUrl, { path: '/main.ts' })).status).toBe(200);
    // The demo's own page reaches the endpoint (Vite's error overlay opens files with it).
    for (const headers of [ownFetch, { referer: `${devUrl}/` }]) {
      expect((await rawHttp(devUrl, { path: openInEditor, headers })).status).toBe(200);
    }
  });

  test('the endpoint in another spelling (case, a trailing slash, percent-encoded, dot segments) is refused as its own is', async () => {
    const query = openInEditor.slice(openInEditor.indexOf('?'));
    // Vite's router (connect) matches a path's prefix without regard to case, and takes a trailing slash.
    const spellings = ['/__OPEN-IN-EDITOR', '/__Open-In-Editor/', '/__open-in-editor/', '/%5F%5Fopen-in-editor', '/x/../__OPEN-in-editor'];
    for (const spelling of spellings) {
      for (const headers of [{}, navigation('cross-site'), navigation('none')]) {
        const answer = await rawHttp(devUrl, { path: spelling + query, headers });
        expect([spelling, answer.status, code(answer.body)]).toEqual([spelling, 403, 'OriginNotAllowed']);
      }
    }
  });

  test('no page, document or folder under node_modules is served, to any page; its modules are', async () => {
    const page = join(ROOT, 'node_modules', 'tslib', 'tslib.html');
    const folder = join(ROOT, 'node_modules', 'playwright-core', 'lib', 'vite', 'traceViewer');
    expect(existsSync(page) && existsSync(join(folder, 'index.html'))).toBe(true);
    for (const headers of [ownFetch, navigation('same-origin'), {}]) {
      for (const path of ['/@fs' + page, '/@fs' + page + '?import', '/@fs' + folder + '/', '/@fs' + join(folder, 'index.html')]) {
        const answer = await rawHttp(devUrl, { path, headers });
        expect([path, answer.status, code(answer.body)]).toEqual([path, 404, 'NotFound']);
      }
      // The same page in other spellings of its path: each is what Vite would serve as the page.
      for (const path of [`/@fs${page}/`, `/@fs${page}//`, `/@fs${page.replace('tslib.html', 'tslib%2Ehtml')}/`, `/@fs/${page}/`]) {
        const answer = await rawHttp(devUrl, { path, headers });
        expect([path, answer.status, code(answer.body)]).toEqual([path, 404, 'NotFound']);
      }
      const module = await rawHttp(devUrl, { path: '/@fs' + join(ROOT, 'node_modules', 'tslib', 'tslib.es6.mjs'), headers });
      expect([module.status, module.headers['content-type']]).toEqual([200, 'text/javascript']);
    }
  });

  test('a link in a served folder that leads out of them is not followed; one that stays inside is', async () => {
    const key = (JSON.parse(await readFile(join(dataDir, 'platform.json'), 'utf8')) as { workspaces: { apiKey: string }[] }).workspaces[0]!
      .apiKey;
    const name = `link-test-${process.pid}`;
    const links = {
      [`${name}.txt`]: join(dataDir, 'platform.json'),
      [`${name}-dir`]: dataDir,
      [`${name}-in.ts`]: join(ROOT, 'src', 'index.ts'),
    };
    try {
      for (const [link, target] of Object.entries(links)) await symlink(target, join(ROOT, 'demo', link));
      for (const headers of [ownFetch, {}]) {
        const viaFs = '/@fs' + join(ROOT, 'demo', `${name}.txt`);
        for (const path of [
          `/${name}.txt`,
          `/${name}.txt?raw`,
          `/${name}-dir/platform.json`,
          viaFs,
          // Other spellings of the same paths: a trailing slash, doubled slashes, dot segments, encodings.
          `${viaFs}/`,
          `${viaFs}//`,
          `${viaFs}/?raw`,
          viaFs.replace('/demo/', '/demo//'),
          viaFs.replace('/demo/', '/demo/./'),
          viaFs.replace('/demo/', '/src/../demo/'),
          viaFs.replace('.txt', '%2Etxt/'),
          viaFs.replace('/@fs/', '/@fs//'),
          `/${name}.txt/`,
          `//${name}.txt/`,
          `/${name}-dir//platform.json/`,
        ]) {
          const answer = await rawHttp(devUrl, { path, headers });
          expect([path, answer.status, code(answer.body)]).toEqual([path, 404, 'NotFound']);
          expect(answer.body).not.toContain(key);
        }
        expect((await rawHttp(devUrl, { path: `/${name}-in.ts`, headers })).status).toBe(200);
      }
    } finally {
      for (const link of Object.keys(links)) await rm(join(ROOT, 'demo', link), { force: true });
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

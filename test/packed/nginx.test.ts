// The nginx recipe of docs/frameworks.md, tried as written: Debian's nginx serves a Vite production build of
// the app with COOP/COEP on every answer (`always`, so that the SPA fallback and errors carry them too) and
// onnxruntime-web's `.mjs` module as JavaScript (nginx's own mime.types before 1.25 lacks it, and a module
// script with another type is refused). Needs nginx (apt-get install nginx); skipped without it.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { expectSegmentsOnTwoThreads, freePort } from './framework-app.js';
import { closeBrowser } from './run-page.js';
import { recordingLogger } from './warnings.js';

const NGINX = '/usr/sbin/nginx';
const { appDir, cliPayload } = inject('packed');
// Outside the app's private temporary folder: nginx's workers run as another user where it starts as root.
const SITE = mkdtempSync(join(tmpdir(), 'edgeseg-nginx-'));
const OUT_DIR = join(SITE, 'out');
const PREFIX = join(SITE, 'nginx');
let nginx: ChildProcess | undefined;
let url: string;
/** The same site with `Cross-Origin-Embedder-Policy: credentialless`. */
let credentialless: string;

/** The doc's server block, with the port and folder filled in. */
function siteConf(port: number, root: string, coep = 'require-corp'): string {
  return `server {
    listen 127.0.0.1:${port};
    root ${root};

    # Every answer, errors included; a location block with add_header of its own drops these, so repeat them there.
    add_header Cross-Origin-Opener-Policy same-origin always;
    add_header Cross-Origin-Embedder-Policy ${coep} always;

    location / {
        try_files $uri $uri/ /index.html;
    }
}
`;
}

beforeAll(async () => {
  if (!existsSync(NGINX)) return;
  chmodSync(SITE, 0o755);
  const { logger } = recordingLogger();
  await build({ root: appDir, configFile: false, customLogger: logger, logLevel: 'warn', build: { outDir: OUT_DIR, emptyOutDir: true } });
  const [port, other] = [await freePort(), await freePort()];
  mkdirSync(join(PREFIX, 'logs'), { recursive: true });
  writeFileSync(join(PREFIX, 'site.conf'), siteConf(port, OUT_DIR) + siteConf(other, OUT_DIR, 'credentialless'));
  writeFileSync(
    join(PREFIX, 'nginx.conf'),
    `daemon off;
pid ${join(PREFIX, 'nginx.pid')};
error_log ${join(PREFIX, 'logs', 'error.log')};
events {}
http {
    include /etc/nginx/mime.types;
    # onnxruntime-web's module is .mjs: nginx's mime.types before 1.25 sends it as application/octet-stream.
    types {
        application/javascript mjs;
    }
    access_log off;
    client_body_temp_path ${PREFIX};
    proxy_temp_path ${PREFIX};
    fastcgi_temp_path ${PREFIX};
    uwsgi_temp_path ${PREFIX};
    scgi_temp_path ${PREFIX};
    include ${join(PREFIX, 'site.conf')};
}
`,
  );
  nginx = spawn(NGINX, ['-p', PREFIX, '-c', join(PREFIX, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  url = `http://127.0.0.1:${port}`;
  credentialless = `http://127.0.0.1:${other}`;
  // Until nginx answers (it exits at once on a bad configuration).
  for (;;) {
    if (nginx.exitCode !== null) throw new Error(`nginx exited with ${nginx.exitCode}`);
    const answered = await fetch(url).then(
      (r) => r.body?.cancel().then(() => true) ?? true,
      () => false,
    );
    if (answered) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
});
afterAll(async () => {
  await closeBrowser();
  if (nginx && nginx.exitCode === null) {
    const exited = new Promise((resolve) => nginx!.once('exit', resolve));
    nginx.kill('SIGQUIT');
    await exited;
  }
  rmSync(SITE, { recursive: true, force: true });
});

describe.skipIf(!existsSync(NGINX))('edgeseg built with Vite, hosted by nginx with the recipe of docs/frameworks.md', () => {
  test("onnxruntime-web's module is served as JavaScript, with COEP", async () => {
    const response = await fetch(url);
    expect(response.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
    const html = await response.text();
    // Vite names the copied module assets/ort.wasm.bundle.min-<hash>.mjs; its URL is in the app's bundle.
    const script = /src="([^"]+\.js)"/.exec(html)?.[1];
    const bundle = await (await fetch(new URL(script!, url))).text();
    const module = /ort\.wasm\.bundle\.min-[\w-]+\.mjs/.exec(bundle)?.[0];
    const answer = await fetch(`${url}/assets/${module}`);
    await answer.body?.cancel();
    expect(answer.headers.get('content-type')).toBe('application/javascript');
    expect(answer.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
  });

  test("the page segments on two WASM threads: the command line's payload", { timeout: 240_000 }, async () => {
    await expectSegmentsOnTwoThreads(`${url}/`, cliPayload);
  });

  test(
    "with COEP credentialless instead, the page is cross-origin isolated too: two WASM threads, the command line's payload",
    { timeout: 240_000 },
    async () => {
      await expectSegmentsOnTwoThreads(`${credentialless}/`, cliPayload);
    },
  );
});

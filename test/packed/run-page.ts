// Drives a browser for the packed-package tests: open a page in one of the three engines (test/engines),
// wait until it publishes its outcome on `window.edgesegResult`, return it. The only browser-specific part
// of those tests; one browser per engine (and one more for Chromium's WebGPU flags) stays open, its page
// navigated from test to test, until closeBrowser().
import { CHROMIUM_WEBGPU_ARGS } from '../chromium.js';
import { openEngine, SAFARI_FEATURES, type EngineName, type EnginePage } from '../engines/index.js';

export interface PagePayload {
  segmentation_mask: string;
  class_map: Record<string, string>;
  image: { width: number; height: number };
}

/** What the test app publishes (test/packed/app/main.js). */
export interface PageResult {
  isolated: boolean;
  payload?: PagePayload;
  backend?: string;
  numThreads?: number;
  fallbacks?: Array<{ backend: string; code: string; message: string }>;
  /** The first attempt's error, where the query asked for a broken setup. */
  error?: { name: string; code?: string; message: string };
  /** The app itself failed (even the defaults did not segment). */
  failed?: { name: string; code?: string; message: string };
  /** The page's console errors and uncaught exceptions, for a failure's report (empty in WebKitGTK, whose driver does not report them). */
  console: string[];
}

export interface RunPageOptions {
  /** The browser engine (default Chromium). */
  engine?: EngineName;
  /** A browser with a WebGPU adapter: Chromium's SwiftShader one (the other engines have no WebGPU). */
  webgpu?: boolean;
  /** WebKitGTK with the track features Safari 18 ships (MediaStreamTrackProcessing) turned on. */
  safari?: boolean;
  timeoutMs?: number;
}

const browsers = new Map<string, Promise<EnginePage>>();

/** The page of the browser that runPage uses for these options, opened on first use: for a test that asks the page more than its result. */
export function pageFor({
  engine = 'chromium',
  webgpu = false,
  safari = false,
  timeoutMs = 120_000,
}: RunPageOptions = {}): Promise<EnginePage> {
  if (webgpu && engine !== 'chromium') throw new Error(`no WebGPU adapter in ${engine} here: a WebGPU page is Chromium's`);
  if (safari && engine !== 'webkit') throw new Error(`Safari's features are WebKit's, not ${engine}'s`);
  const key = `${engine}${webgpu ? '+webgpu' : ''}${safari ? '+safari' : ''}`;
  if (!browsers.has(key))
    browsers.set(
      key,
      openEngine(engine, {
        scriptTimeoutMs: timeoutMs + 30_000,
        ...(webgpu ? { chromiumArgs: CHROMIUM_WEBGPU_ARGS } : {}),
        ...(safari ? { webkitArgs: SAFARI_FEATURES } : {}),
      }),
    );
  return browsers.get(key)!;
}

export async function runPage(url: string, options: RunPageOptions = {}): Promise<PageResult> {
  const { engine = 'chromium', timeoutMs = 120_000 } = options;
  const page = await pageFor(options);
  const seen = page.consoleErrors?.length ?? 0;
  await page.goto(url);
  // A navigation may return before the new document replaced the old one (WebKitGTK's driver, when the
  // page's COOP puts it in another process): the result counts only once the page is the one asked for.
  // Read-only, so run again where WebKitGTK's driver failed to read a script's answer back ("Could not
  // parse script result", now and then on a page with a media stream): the page's result is still there.
  const readResult = async (attempt = 1): Promise<Omit<PageResult, 'console'>> => {
    try {
      return await page.evaluate(
        (href: string, ms: number) =>
          new Promise<Omit<PageResult, 'console'>>((resolve, reject) => {
            const started = Date.now();
            const poll = () => {
              const published = (window as unknown as { edgesegResult?: Omit<PageResult, 'console'> }).edgesegResult;
              if (published && location.href === href) resolve(published);
              else if (Date.now() - started > ms)
                reject(new Error(`the page published no result in ${ms} ms (status: ${document.querySelector('#status')?.textContent})`));
              else setTimeout(poll, 50);
            };
            poll();
          }),
        new URL(url).href,
        timeoutMs,
      );
    } catch (error) {
      if (engine !== 'webkit' || attempt >= 3 || !/Could not parse script result/.test(String(error))) throw error;
      return readResult(attempt + 1);
    }
  };
  const result = await readResult();
  return { ...result, console: page.consoleErrors?.slice(seen) ?? [] };
}

/** Closes the browsers of `engine` (default: every engine's). */
export async function closeBrowser(engine?: EngineName): Promise<void> {
  const keys = [...browsers.keys()].filter((key) => engine === undefined || key.split('+')[0] === engine);
  const open = keys.map((key) => browsers.get(key)!);
  for (const key of keys) browsers.delete(key);
  await Promise.all(open.map(async (b) => (await b.catch(() => null))?.close()));
}

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
  const { timeoutMs = 120_000 } = options;
  const page = await pageFor(options);
  const seen = page.consoleErrors?.length ?? 0;
  await page.goto(url);
  // A navigation may return before the new document replaced the old one (WebKitGTK's driver, when the
  // page's COOP puts it in another process): the result counts only once the page is the one asked for.
  // The wait is here, in short read-only scripts polled against our own deadline, not one script held open
  // for the whole wait: on a busy machine WebKitGTK's driver failed such a long script ("unknown error",
  // "Could not parse script result") though the page was fine, so a script that fails that way is read again.
  const href = new URL(url).href;
  const deadline = Date.now() + timeoutMs;
  const read = async <T>(fn: (href: string) => T): Promise<T | undefined> => {
    try {
      return await page.evaluate(fn, href);
    } catch (error) {
      if (!/Could not parse script result|unknown error/i.test(String(error)) || Date.now() > deadline) throw error;
      return undefined;
    }
  };
  const readResult = async (): Promise<Omit<PageResult, 'console'>> => {
    for (;;) {
      const published = await read((expected) => {
        const found = (window as unknown as { edgesegResult?: Omit<PageResult, 'console'> }).edgesegResult;
        return found && location.href === expected ? found : null;
      });
      if (published) return published;
      if (Date.now() > deadline) {
        const status = await read(() => document.querySelector('#status')?.textContent ?? null).catch(() => undefined);
        throw new Error(`the page published no result in ${timeoutMs} ms (status: ${status ?? 'unreadable'})`);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
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

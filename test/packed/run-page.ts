// Drives a browser for the packed-package tests: open a page, wait until it publishes its outcome on
// `window.edgesegResult`, return it. The only browser-specific part of those tests (Chromium here; a
// Firefox or WebKit twin of this function runs the same tests in those engines).
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH, CHROMIUM_WEBGPU_ARGS } from '../chromium.js';

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
  /** The page's console errors and uncaught exceptions, for a failure's report. */
  console: string[];
}

export interface RunPageOptions {
  /** A browser with a WebGPU adapter (Chromium: SwiftShader's). */
  webgpu?: boolean;
  timeoutMs?: number;
}

const browsers = new Map<boolean, Promise<Browser>>();

export async function runPage(url: string, { webgpu = false, timeoutMs = 120_000 }: RunPageOptions = {}): Promise<PageResult> {
  if (!browsers.has(webgpu)) browsers.set(webgpu, chromium.launch({ executablePath: CHROMIUM_PATH, args: webgpu ? CHROMIUM_WEBGPU_ARGS : CHROMIUM_ARGS }));
  const page = await (await browsers.get(webgpu)!).newPage();
  const console: string[] = [];
  page.on('console', (m) => m.type() === 'error' && console.push(m.text()));
  page.on('pageerror', (e) => console.push(`uncaught: ${e.message}`));
  try {
    await page.goto(url);
    await page.waitForFunction(() => 'edgesegResult' in window, null, { timeout: timeoutMs });
    const result = await page.evaluate(() => (window as unknown as { edgesegResult: Omit<PageResult, 'console'> }).edgesegResult);
    return { ...result, console };
  } finally {
    await page.close();
  }
}

export async function closeBrowser(): Promise<void> {
  const open = [...browsers.values()];
  browsers.clear();
  await Promise.all(open.map(async (b) => (await b).close()));
}

// The engine harness (test/engines) in each engine: opens a page, evaluates script with arguments, gets
// errors back with their text, takes a screenshot; and the browser is the version the support table names.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ENGINES, openEngine, type EnginePage } from '../engines/index.js';
import { SUPPORT } from '../engines/support.js';
import { startStaticServer, type StaticServer } from '../fixtures/static-server.js';
import { ROOT } from '../helpers/paths.js';
import { join } from 'node:path';

let files: StaticServer;
beforeAll(async () => {
  files = await startStaticServer(join(ROOT, 'test', 'fixtures'), { isolate: true });
});
afterAll(() => files?.close());

describe.each(ENGINES)('%s', (engine) => {
  let page: EnginePage;
  beforeAll(async () => {
    page = await openEngine(engine);
  });
  afterAll(() => page?.close());

  test("is the version in the support table; evaluates, rejects with the page's error, screenshots", async () => {
    expect(page.version.startsWith(`${SUPPORT[engine].version}.`)).toBe(true);
    await page.goto(`${files.url}/reference/manifest.json`);
    const answer = await page.evaluate(
      async (a: number, b: string) => ({
        sum: a + 1,
        text: b.toUpperCase(),
        isolated: crossOriginIsolated,
        json: (await (await fetch(location.href)).json()) !== null,
      }),
      41,
      'ok',
    );
    expect(answer).toEqual({ sum: 42, text: 'OK', isolated: true, json: true });
    await expect(page.evaluate(() => Promise.reject(new RangeError('from the page')))).rejects.toThrow(/from the page/);
    const png = await page.screenshot();
    expect(png.subarray(1, 4).toString()).toBe('PNG');
  });
});

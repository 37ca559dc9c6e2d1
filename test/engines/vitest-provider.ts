// A Vitest browser provider over test/engines: runs the browser test projects in Firefox and WebKit (and
// Chromium) with the same Debian binaries, where Vitest's own WebDriver provider would fetch drivers.
import { defineBrowserProvider } from '@vitest/browser';
import type { BrowserProvider, BrowserProviderOption } from 'vitest/node';
import { openEngine, type EngineName, type EnginePage, type OpenOptions } from './index.js';

class EngineProvider implements BrowserProvider {
  readonly name: string;
  // One page at a time: test files share the 2-core machine with the workers they start.
  readonly supportsParallelism = false;
  #engine: EngineName;
  #options: OpenOptions;
  #pages = new Map<string, Promise<EnginePage>>();

  constructor(engine: EngineName, options: OpenOptions) {
    this.name = `engine-${engine}`;
    this.#engine = engine;
    this.#options = options;
  }

  getCommandsContext(sessionId: string): Record<string, unknown> {
    return { engine: this.#engine, page: this.#pages.get(sessionId) };
  }

  async openPage(sessionId: string, url: string): Promise<void> {
    let page = this.#pages.get(sessionId);
    if (!page) this.#pages.set(sessionId, (page = openEngine(this.#engine, this.#options)));
    await (await page).goto(url);
  }

  async close(): Promise<void> {
    const pages = [...this.#pages.values()];
    this.#pages.clear();
    await Promise.all(pages.map(async (p) => (await p.catch(() => null))?.close()));
  }
}

/** Vitest's `browser.provider` for `engine`; its instance is `{ browser: engine }`. */
export function engineProvider(engine: EngineName, options: OpenOptions = {}): BrowserProviderOption<OpenOptions> {
  return defineBrowserProvider({
    name: `engine-${engine}`,
    supportedBrowser: [engine],
    options,
    providerFactory: () => new EngineProvider(engine, options),
  });
}

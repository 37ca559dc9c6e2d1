// The fix that a RUNTIME_FILE_MISSING names where the page's framework is known and copies no runtime file
// by itself: Angular's `ng build` (esbuild) emits no file that a dependency refers to with
// `new URL(…, import.meta.url)`, so its one step is an `assets` entry in angular.json, which puts the files
// beside the bundle, where the bundled URLs already point.
import { FIX, type RuntimeLocation } from './runtime-location.js';

/** The angular.json `assets` entry that copies edgeseg's runtime files beside an Angular build's bundles. */
export const ANGULAR_ASSETS = { glob: '{segment-worker.js,ort*}', input: 'node_modules/edgeseg/dist/browser', output: '/' };

export const ANGULAR_FIX = `Angular's build copies no file that a dependency refers to: add ${JSON.stringify(ANGULAR_ASSETS)} to the build's "assets" in angular.json`;

/** Whether the page is an Angular app: Angular marks each root component's element with `ng-version`, in dev and production builds. */
export function isAngularPage(): boolean {
  return typeof document !== 'undefined' && document.querySelector('[ng-version]') !== null;
}

/** `locations` with the bundler's fix replaced by the framework's, where the page is an Angular app. */
export function withFrameworkFix(locations: RuntimeLocation[], angular: boolean): RuntimeLocation[] {
  return angular ? locations.map((location) => (location.fix === FIX.bundled ? { ...location, fix: ANGULAR_FIX } : location)) : locations;
}

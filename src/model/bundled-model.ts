// The bundled models as values (what `edgeseg/models/<name>` exports, which every `model` option takes, in
// the browser and in Node), and the errors for a model written as a word where no bundled model answers.
import { InvalidInputError } from '../errors/index.js';

/** The names of the bundled models. */
export type BundledModelName = 'people' | 'people-landscape' | 'shapes';

export const BUNDLED_MODEL_NAMES: readonly BundledModelName[] = ['people', 'people-landscape', 'shapes'];

/**
 * A bundled model, as `import people from 'edgeseg/models/people'` gives it: its name and the URL of each
 * file of its package. Each URL is a literal `new URL('…', import.meta.url)` in that module, so a bundler
 * copies the files of the models an app imports, and no others; in Node they are `file:` URLs into the
 * installed package.
 */
export interface BundledModel {
  /** Its name, as `edgeseg/node` and the command line take it. */
  readonly name: BundledModelName;
  /** Each file of its package (`weights.onnx`, …) where the bundler put it, or in the installed package. */
  readonly urls: Readonly<Record<string, URL>>;
}

export function isBundledModelName(name: unknown): name is BundledModelName {
  return typeof name === 'string' && (BUNDLED_MODEL_NAMES as readonly string[]).includes(name);
}

export function isBundledModel(value: unknown): value is BundledModel {
  return (
    typeof value === 'object' &&
    value !== null &&
    isBundledModelName((value as { name?: unknown }).name) &&
    typeof (value as { urls?: unknown }).urls === 'object' &&
    (value as { urls?: unknown }).urls !== null
  );
}

/** A model written as a word (no slash, dot or colon): a bundled model's name, or a mistake for one. */
export function isModelWord(model: string): boolean {
  return /^[\w-]+$/.test(model);
}

/** `import people from 'edgeseg/models/people'; createSegmenter({ model: people })`, for `name` and `call`. */
export function importInstead(name: BundledModelName, call: string): string {
  const binding = name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
  return `import ${binding} from 'edgeseg/models/${name}'; ${call}({ model: ${binding} })`;
}

/**
 * A bundled model's name given as a string in the browser: a page has no package folder to find it in, and
 * resolving every name would put every model into every app's build, so the model is imported instead.
 */
export function notImportedError(name: BundledModelName, call: string): InvalidInputError {
  return new InvalidInputError(
    'MODEL_NOT_IMPORTED',
    `the bundled model '${name}' is imported in the browser, so that a build carries only the models it uses: ${importInstead(name, call)}; a package folder of your own is a URL, written with a slash ('./${name}/')`,
  );
}

/** A word that names no bundled model; `folder` is how a package folder of that name is written instead. */
export function unknownNameError(word: string, folder: string): InvalidInputError {
  return new InvalidInputError(
    'MODEL_NAME_UNKNOWN',
    `no bundled model is named '${word}': the bundled models are ${BUNDLED_MODEL_NAMES.join(', ')}; a package folder is written with a slash ('${folder}')`,
  );
}

/** In the browser, where a string is a URL: throws for a model written as a word (see notImportedError). */
export function refuseModelWord(model: unknown, call: string): void {
  if (typeof model !== 'string' || !isModelWord(model)) return;
  throw isBundledModelName(model) ? notImportedError(model, call) : unknownNameError(model, `./${model}/`);
}

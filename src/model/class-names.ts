// class_names.txt: one class a line, in class-id order; `background` marks the background class.
import { ModelPackageError } from '../errors/index.js';

/** More than this many classes cannot be written to an 8-bit mask. */
export const MAX_CLASSES = 256;

export function parseClassNames(text: string): string[] {
  const names = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  return checkClassNames(names);
}

export function checkClassNames(names: string[]): string[] {
  if (names.length === 0) throw new ModelPackageError('MODEL_NO_CLASSES', 'the package lists no class names');
  if (names.length > MAX_CLASSES) {
    throw new ModelPackageError(
      'MODEL_TOO_MANY_CLASSES',
      `the package has ${names.length} classes; an 8-bit mask holds at most ${MAX_CLASSES}`,
    );
  }
  return names;
}

/** Index of the class named `background` (any case), as the reference requires one. */
export function backgroundClassId(names: string[]): number {
  const index = names.findIndex((n) => n.toLowerCase() === 'background');
  if (index < 0) {
    throw new ModelPackageError(
      'MODEL_CONFIG_INVALID',
      `class_names.txt has no "background" class (${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}); ` +
        'pixels below the confidence threshold need one, as they do on the platform',
    );
  }
  return index;
}

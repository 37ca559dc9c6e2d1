// Paths of the repository's fixtures and bundled models, for tests.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const TINY = (name: string) => join(ROOT, 'test', 'fixtures', 'models', name);

// Paths of the repository's fixtures and bundled models, for tests.
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const TINY = (name: string) => join(ROOT, 'test', 'fixtures', 'models', name);

/** Where tests keep what they fetch from the npm registry between runs (EDGESEG_TOOL_CACHE to move it). */
export const TOOL_CACHE = process.env['EDGESEG_TOOL_CACHE'] ?? join(homedir(), '.cache', 'edgeseg-test-tools');

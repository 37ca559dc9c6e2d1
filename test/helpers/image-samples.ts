// The sample image of each allowed format, read from test/fixtures/images (Node).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SAMPLE_FILES, type Samples } from '../fixtures/bad-images.js';
import { ROOT } from './paths.js';

export const samples = (): Samples =>
  Object.fromEntries(
    Object.entries(SAMPLE_FILES).map(([k, file]) => [k, new Uint8Array(readFileSync(join(ROOT, 'test', 'fixtures', 'images', file)))]),
  ) as Samples;

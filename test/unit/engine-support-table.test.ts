// docs/engines.md's support table is the one the browser tests assert in each engine (test/engines/support.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { renderSupportTable } from '../engines/support.js';
import { ROOT } from '../helpers/paths.js';

test('docs/engines.md shows the support table that test/browser/engine-support.test.ts checks in each engine', () => {
  const page = readFileSync(join(ROOT, 'docs', 'engines.md'), 'utf8');
  const table = /<!-- support-table:start[^>]*-->\n([\s\S]*?)\n<!-- support-table:end -->/.exec(page);
  expect(table, 'docs/engines.md has the support-table markers').not.toBeNull();
  expect(table![1]).toBe(renderSupportTable());
});

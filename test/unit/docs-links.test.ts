// Every relative link of the documentation points at a file that exists, and its #anchor at a heading of it.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ROOT } from '../helpers/paths.js';

const PAGES = [
  'README.md',
  'CONTRIBUTING.md',
  'demo/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The page's text without fenced code blocks and inline code, where brackets are not links. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const text = markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '');
  for (const [, heading] of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = heading!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The relative links of a page: `[text](target)`, not http(s), mailto or the generated API reference. */
function linksOf(markdown: string): string[] {
  const links: string[] = [];
  for (const [, target] of prose(markdown).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue;
    links.push(target!);
  }
  return links;
}

test('anchors are made as GitHub makes them', () => {
  expect([...anchorsOf('# Use it in your app\n## `segmentMany` (Node)\n## Many images\n## Many images\n')]).toEqual([
    'use-it-in-your-app',
    'segmentmany-node',
    'many-images',
    'many-images-1',
  ]);
});

describe.each(PAGES)('%s', (page) => {
  const path = join(ROOT, page);
  const markdown = readFileSync(path, 'utf8');
  const links = linksOf(markdown);
  test.each(links.length ? links : ['(no links)'])('%s', (link) => {
    if (link === '(no links)') return;
    const [file, anchor] = link.split('#') as [string, string | undefined];
    const target = file === '' ? path : join(dirname(path), decodeURIComponent(file));
    expect(relative(ROOT, target).startsWith('..'), `${link} leaves the repository`).toBe(false);
    expect(existsSync(target), `${link}: ${relative(ROOT, target)} does not exist`).toBe(true);
    if (anchor === undefined) return;
    expect(statSync(target).isFile() && target.endsWith('.md'), `${link}: an anchor into a file that is not Markdown`).toBe(true);
    expect([...anchorsOf(readFileSync(target, 'utf8'))], `${link}: no heading with that anchor`).toContain(anchor);
  });
});

// The demo follows only web links from a platform's answers: a platform the user points it at could
// answer an export link that runs script in the demo's page.
import { expect, test } from 'vitest';
import { webHref } from '../../../demo/safe-link.js';

const PAGE = 'http://127.0.0.1:5173/';

test('http and https links are kept, resolved against the page', () => {
  expect(webHref('https://platform.example/exports/a.zip?sig=1', PAGE)).toBe('https://platform.example/exports/a.zip?sig=1');
  expect(webHref('http://127.0.0.1:5173/api/exports/t/a.zip', PAGE)).toBe('http://127.0.0.1:5173/api/exports/t/a.zip');
  expect(webHref('/api/exports/t/a.zip', PAGE)).toBe('http://127.0.0.1:5173/api/exports/t/a.zip');
});

test.each([
  'javascript:alert(document.cookie)',
  ' JavaScript:alert(1)',
  'java\tscript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'vbscript:msgbox(1)',
  'blob:http://127.0.0.1:5173/x',
  'file:///etc/passwd',
  'http://[::1',
])('%j is refused', (link) => {
  expect(webHref(link, PAGE)).toBeNull();
});

test('what is no string is refused', () => {
  for (const value of [null, undefined, 42, { href: 'https://a.example' }]) expect(webHref(value, PAGE)).toBeNull();
});

// What the command line prints of a name it did not choose: every control character as an escape.
import { expect, test } from 'vitest';
import { printable } from '../../../src/cli/printable.js';

test('C0 and C1 controls, DEL and bidirectional marks are written out; other text, newlines kept on request, is as it was', () => {
  expect(printable('a\x1b[31mb\x07c\rd\ne\tf\x00g\x7fh\x9bi')).toBe('a\\x1b[31mb\\x07c\\rd\\ne\\tf\\x00g\\x7fh\\x9bi');
  // "evil\u202egnp.exe" shows as "evilexe.png" on a terminal that honours the override.
  expect(printable('evil\u202egnp.exe \u2066x\u2069')).toBe('evil\\u202egnp.exe \\u2066x\\u2069');
  expect(printable('photo été 東京 🙂.png')).toBe('photo été 東京 🙂.png');
  expect(printable('line one\nline\x1b two', '\n')).toBe('line one\nline\\x1b two');
});

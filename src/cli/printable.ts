// Text from outside (file names, the messages that quote them, a model's class names) as the terminal is to
// show it: control characters written out, never acted on.

/**
 * C0 and C1 controls and DEL (ESC starts the sequences that retitle a terminal, move its cursor or clear
 * it; CSI, 0x9b, does the same in one character; BEL rings; CR rewrites the line), and the invisible
 * marks that reorder text (Unicode's bidirectional controls), which make a name read as another.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is what this is for
const UNPRINTABLE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` with each control character written as an escape (`\x1b`, `\r`, `\u202e`); `keep` names those left as they are (`'\n'` for a message of several lines). */
export function printable(text: string, keep = ''): string {
  return text.replace(UNPRINTABLE, (c) => {
    if (keep.includes(c)) return c;
    const code = c.charCodeAt(0);
    return NAMED[c] ?? (code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
  });
}

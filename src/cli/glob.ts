// Glob patterns for the command line (Node 20 has no fs.glob): `*`, `?`, `[…]`, `{a,b}` and `**`, as shells match them.

const MAGIC = /[*?[{]/;

/** Whether `text` has a wildcard (`*`, `?`, `[`, `{`) outside a backslash escape. */
export function isGlob(text: string): boolean {
  return MAGIC.test(text.replace(/\\./g, ''));
}

/**
 * The pattern split at its first segment with a wildcard: `base` is the folder the matches are under
 * (`.` when the first segment has one), `rest` what is matched below it, `depth` the number of segments
 * below `base` a match has, or `Infinity` where `**` allows any.
 */
export function splitGlob(pattern: string): { base: string; rest: string; depth: number } {
  const segments = pattern.split('/');
  const first = segments.findIndex(isGlob);
  const at = first < 0 ? segments.length - 1 : first;
  const base = segments.slice(0, at).join('/');
  const rest = segments.slice(at);
  return {
    base: base === '' ? (pattern.startsWith('/') ? '/' : '.') : base,
    rest: rest.join('/'),
    depth: rest.includes('**') ? Infinity : rest.length,
  };
}

/**
 * A RegExp for paths relative to the pattern's base, `/`-separated. `*` and `?` stay within a segment,
 * `**` as a whole segment spans any number of them; as in shells, a wildcard does not match a name that
 * starts with a dot unless the pattern's segment starts with one. Braces do not nest and hold no `/`.
 */
export function globToRegExp(pattern: string): RegExp {
  const segments = pattern.split('/');
  let source = '';
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    if (segment === '**') {
      source += last ? '(?!\\.)[^/]*(?:/(?!\\.)[^/]*)*' : '(?:(?!\\.)[^/]*/)*';
      return;
    }
    source += segmentSource(segment) + (last ? '' : '/');
  });
  return new RegExp(`^${source}$`);
}

function segmentSource(segment: string): string {
  let out = segment.startsWith('.') ? '' : '(?!\\.)';
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]!;
    if (c === '\\' && i + 1 < segment.length) out += escape(segment[++i]!);
    else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = segment.indexOf(']', i + 2);
      if (end < 0) {
        out += '\\[';
        continue;
      }
      let body = segment.slice(i + 1, end);
      const negated = body.startsWith('!') || body.startsWith('^');
      if (negated) body = body.slice(1);
      out += `[${negated ? '^/' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
      i = end;
    } else if (c === '{') {
      const end = segment.indexOf('}', i + 1);
      if (end < 0) {
        out += '\\{';
        continue;
      }
      const alternatives = segment.slice(i + 1, end).split(',');
      out += `(?:${alternatives.map((a) => segmentSource(a).replace('(?!\\.)', '')).join('|')})`;
      i = end;
    } else out += escape(c);
  }
  return out;
}

function escape(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

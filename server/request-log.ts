// What the request log may show of a request: its URL with every key and signature masked, in the spellings
// the server reads and in those it does not (a key encoded twice, a key cut short, a key with a typo).
import { redact } from '../src/platform/redact.js';

/** Query parameters whose values are never logged: the key (as any parameter-name spelling decodes) and signatures. */
const SECRET_PARAMS = /^(?:api_key|apikey|key|token|sig)$/i;

/**
 * The shortest run of a key's characters that is masked wherever it appears: a key cut short, mistyped or
 * spelled in a way the server does not read is still most of the key.
 */
export const KEY_FRAGMENT_LENGTH = 8;

/**
 * A request's URL as the log shows it. The query is decoded as the server reads it, so `api%5Fkey=…` and
 * `%61pi_key=…` are the `api_key` they are, each secret parameter's value is masked, a URL inside a
 * parameter (`image=http://…?api_key=…`) has its own query masked the same way, and each known key is
 * masked wherever else it appears, in the path or encoded. A name or value that holds a piece of a key
 * once fully decoded (`api%255Fkey`, a key encoded twice, its first 31 characters) is shown decoded, the
 * piece masked.
 */
export function loggedUrl(rawPath: string, query: string, secrets: readonly (string | undefined)[]): string {
  const keys = secrets.filter((s): s is string => typeof s === 'string' && s.length > 0);
  const maskQuery = (text: string, depth: number): string =>
    [...new URLSearchParams(text)]
      .map(([name, value]) => {
        const secret = SECRET_PARAMS.test(name) || SECRET_PARAMS.test(fullyDecoded(name));
        const shown = secret ? '***' : hidePieces(depth < 3 ? maskInnerUrl(value, depth) : value, keys);
        return `${encodeURIComponent(hidePieces(name, keys))}=${encodeURIComponent(shown).replace(/%2A/g, '*')}`;
      })
      .join('&');
  const maskInnerUrl = (value: string, depth: number) => {
    const at = value.indexOf('?');
    return at < 0 ? value : `${value.slice(0, at)}?${maskQuery(value.slice(at + 1), depth + 1)}`;
  };
  const path = hidePieces(rawPath.replace(/\/signed\.(\d+)\.[0-9a-f]+/g, '/signed.$1.***'), keys);
  return maskSecrets(`${path}${query ? `?${maskQuery(query, 0)}` : ''}`, keys);
}

/**
 * `text` with each known key, and each run of letters, digits, `-` and `_` that holds a piece of one
 * ({@link KEY_FRAGMENT_LENGTH} characters or more), replaced by `***`; `key=` parameters masked too.
 */
export function maskSecrets(text: string, secrets: readonly (string | undefined)[]): string {
  const keys = secrets.filter((s): s is string => typeof s === 'string' && s.length > 0);
  return redact(text, ...keys).replace(/[A-Za-z0-9_-]+/g, (run) => (holdsPiece(run, keys) ? '***' : run));
}

/** `text` as sent, or fully decoded with the pieces of keys masked where it holds one. */
function hidePieces(text: string, keys: readonly string[]): string {
  const decoded = fullyDecoded(text);
  const masked = maskSecrets(decoded, keys);
  return masked === decoded ? text : masked;
}

function holdsPiece(run: string, keys: readonly string[]): boolean {
  for (const key of keys) {
    const n = Math.min(KEY_FRAGMENT_LENGTH, key.length);
    for (let i = 0; i + n <= run.length; i++) if (key.includes(run.slice(i, i + n))) return true;
  }
  return false;
}

/** Percent-decoded until nothing changes (a few rounds at most), as far as it decodes. */
function fullyDecoded(text: string): string {
  let out = text;
  for (let round = 0; round < 4; round++) {
    let next: string;
    try {
      next = decodeURIComponent(out);
    } catch {
      break;
    }
    if (next === out) break;
    out = next;
  }
  return out;
}

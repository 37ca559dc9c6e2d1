// Keeps API keys out of every message, log line and printed URL.

const KEY_PARAM = /([?&](?:api_key|apiKey|key|token)=)[^&#\s"']*/gi;

/**
 * `text` with the value of every `api_key=` (and `key=`, `token=`) query parameter replaced by `***`,
 * and any occurrence of the given secrets too.
 */
export function redact(text: string, ...secrets: (string | undefined)[]): string {
  let out = text.replace(KEY_PARAM, '$1***');
  for (const secret of secrets) if (secret && secret.length >= 4) out = out.split(secret).join('***');
  return out;
}

/** A URL safe to print: its key parameters masked. */
export function redactUrl(url: string | URL, ...secrets: (string | undefined)[]): string {
  return redact(String(url), ...secrets);
}

/** A copy of a parsed JSON value with every string redacted. */
export function redactDeep(value: unknown, ...secrets: (string | undefined)[]): unknown {
  if (typeof value === 'string') return redact(value, ...secrets);
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, ...secrets));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v, ...secrets)]));
  }
  return value;
}

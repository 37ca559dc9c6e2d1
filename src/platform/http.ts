// One request to the platform: the key in the query, a timeout, the caller's AbortSignal, retries with
// exponential backoff and jitter (honouring Retry-After) for requests that are safe to repeat, and every
// failure mapped to a PlatformError.
import { AbortedError, ConnectionError, errorFromResponse, InvalidResponseError, PlatformError, RateLimitError, TimeoutError } from './errors/index.js';
import { redact, redactDeep, redactUrl } from './redact.js';

export interface HttpSettings {
  apiKey: string;
  fetch: typeof fetch;
  timeoutMs: number;
  maxRetries: number;
  /** Backoff before retry n (0-based): base · 2^n with full jitter, capped. */
  retryBaseMs: number;
  retryMaxMs: number;
}

export interface RequestSpec {
  method: 'GET' | 'POST';
  /** Absolute URL without the api_key parameter. */
  url: string;
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  body?: string;
  contentType?: string;
  /** Safe to send again (catalog, search, hosted inference); never synthetic images. */
  retryable: boolean;
  signal?: AbortSignal;
}

const RETRY_STATUSES = new Set([429, 502, 503, 504]);

export async function requestJson<T>(settings: HttpSettings, spec: RequestSpec): Promise<T> {
  const url = new URL(spec.url);
  for (const [k, v] of Object.entries(spec.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  url.searchParams.set('api_key', settings.apiKey);
  const printable = redactUrl(url, settings.apiKey);
  const headers: Record<string, string> = { accept: 'application/json' };
  let body: string | undefined;
  if (spec.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(spec.json);
  } else if (spec.body !== undefined) {
    headers['content-type'] = spec.contentType ?? 'text/plain';
    body = spec.body;
  }
  const attempts = spec.retryable ? settings.maxRetries + 1 : 1;
  for (let attempt = 0; ; attempt++) {
    let error: PlatformError;
    let wait: number | undefined;
    try {
      return await once<T>(settings, spec, url, printable, headers, body);
    } catch (e) {
      if (!(e instanceof PlatformError)) throw e;
      error = e;
      const again =
        e.code === 'CONNECTION_FAILED' || e.code === 'TIMEOUT' || (e.status !== undefined && RETRY_STATUSES.has(e.status));
      if (!again || attempt + 1 >= attempts) throw e;
      if (e instanceof RateLimitError && e.retryAfter !== undefined) wait = Math.min(e.retryAfter * 1000, 60_000);
    }
    const backoff = wait ?? Math.random() * Math.min(settings.retryMaxMs, settings.retryBaseMs * 2 ** attempt);
    await sleep(backoff, spec.signal).catch(() => {
      throw new AbortedError(`${spec.method} ${printable} was aborted`, { method: spec.method, url: printable, cause: error });
    });
  }
}

async function once<T>(settings: HttpSettings, spec: RequestSpec, url: URL, printable: string, headers: Record<string, string>, body: string | undefined): Promise<T> {
  const info = { method: spec.method, url: printable };
  if (spec.signal?.aborted) throw new AbortedError(`${spec.method} ${printable} was aborted`, info);
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), settings.timeoutMs);
  const signal = spec.signal ? AbortSignal.any([spec.signal, timeout.signal]) : timeout.signal;
  let response: Response;
  let text: string;
  try {
    response = await settings.fetch(url, { method: spec.method, headers, ...(body === undefined ? {} : { body }), signal });
    text = await response.text();
  } catch (cause) {
    if (spec.signal?.aborted) throw new AbortedError(`${spec.method} ${printable} was aborted`, { ...info, cause });
    if (timeout.signal.aborted) throw new TimeoutError(`${spec.method} ${printable} got no answer within ${settings.timeoutMs} ms`, { ...info, cause });
    throw new ConnectionError(`${spec.method} ${printable} failed: ${redact(String((cause as Error).message), settings.apiKey)}`, { ...info, cause });
  } finally {
    clearTimeout(timer);
  }
  let parsed: unknown = text;
  const isJson = (response.headers.get('content-type') ?? '').includes('json') || /^\s*[{[]/.test(text);
  if (isJson && text.length > 0) {
    try {
      parsed = JSON.parse(text);
    } catch {
      if (response.ok) throw new InvalidResponseError(`${spec.method} ${printable} answered ${response.status} with malformed JSON`, { ...info, status: response.status, body: text.slice(0, 300) });
    }
  }
  // The platform may echo the key in an error; it is scrubbed before any message is built from it.
  if (!response.ok) throw errorFromResponse(response.status, redactDeep(parsed, settings.apiKey), response.headers, info);
  if (typeof parsed !== 'object' || parsed === null) {
    throw new InvalidResponseError(`${spec.method} ${printable} answered ${response.status} without a JSON object`, { ...info, status: response.status, body: text.slice(0, 300) });
  }
  return parsed as T;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

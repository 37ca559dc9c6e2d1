// One request to the platform: the key in the query, a timeout, the caller's AbortSignal, retries with
// exponential backoff and jitter (honouring Retry-After) for requests that are safe to repeat, and every
// failure mapped to a PlatformError.
import {
  AbortedError,
  ConnectionError,
  errorFromResponse,
  InvalidResponseError,
  PlatformError,
  RateLimitError,
  ServerError,
  TimeoutError,
} from './errors/index.js';
import { redact, redactDeep, redactUrl } from './redact.js';

export interface HttpSettings {
  apiKey: string;
  fetch: typeof fetch;
  timeoutMs: number;
  maxRetries: number;
  /** Backoff before retry n (0-based): base · 2^n, capped, less up to a quarter of jitter. */
  retryBaseMs: number;
  retryMaxMs: number;
}

export interface RequestSpec {
  method: 'GET' | 'POST';
  /** Absolute URL without the api_key parameter. */
  url: string;
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  /** A multipart/form-data body: fetch writes its content type, boundary included. */
  form?: FormData;
  /** Safe to send again (catalog, search, hosted inference); never synthetic images. */
  retryable: boolean;
  signal?: AbortSignal;
}

/**
 * Checks (and may reshape) a 2xx answer's JSON. What it throws becomes an InvalidResponseError that
 * carries the request's masked URL, the status and the body, so callers see where the bad answer came from.
 */
export type ParseAnswer<T> = (body: object) => T;

const RETRY_STATUSES = new Set([429, 502, 503, 504]);
/** A server's Retry-After is followed up to this long; beyond it, the wait is capped here. */
const RETRY_AFTER_MAX_MS = 60_000;

export async function requestJson<T>(settings: HttpSettings, spec: RequestSpec, parse?: ParseAnswer<T>): Promise<T> {
  const url = new URL(spec.url);
  for (const [k, v] of Object.entries(spec.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  url.searchParams.set('api_key', settings.apiKey);
  const printable = redactUrl(url, settings.apiKey);
  const headers: Record<string, string> = { accept: 'application/json' };
  let body: string | FormData | undefined;
  if (spec.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(spec.json);
  } else if (spec.form !== undefined) body = spec.form;
  const attempts = spec.retryable ? settings.maxRetries + 1 : 1;
  for (let attempt = 0; ; attempt++) {
    let error: PlatformError;
    let wait: number | undefined;
    try {
      return await once<T>(settings, spec, url, printable, headers, body, parse);
    } catch (e) {
      if (!(e instanceof PlatformError)) throw e;
      error = e;
      // A client-side timeout is not retried: the server may still be working on the request (a slow
      // hosted inference would get the same image again and again), and the caller who set timeoutMs
      // should hear back in about that time, not (maxRetries + 1) times it.
      const again = e.code === 'CONNECTION_FAILED' || (e.status !== undefined && RETRY_STATUSES.has(e.status));
      if (!again || attempt + 1 >= attempts) throw e;
      // Retry-After comes with 429 and with 503 (RFC 9110 §10.2.3); ServerError keeps it for any 5xx.
      const retryAfter = e instanceof RateLimitError || e instanceof ServerError ? e.retryAfter : undefined;
      if (retryAfter !== undefined) wait = Math.min(retryAfter * 1000, RETRY_AFTER_MAX_MS);
    }
    // Jitter takes at most a quarter off, so concurrent clients spread out while each wait is still
    // longer than the one before (full jitter could wait less on the third try than on the first).
    const backoff = wait ?? Math.min(settings.retryMaxMs, settings.retryBaseMs * 2 ** attempt) * (1 - Math.random() * 0.25);
    if (!(await sleep(backoff, spec.signal))) {
      throw new AbortedError(`${spec.method} ${printable} was aborted`, { method: spec.method, url: printable, cause: error });
    }
  }
}

async function once<T>(
  settings: HttpSettings,
  spec: RequestSpec,
  url: URL,
  printable: string,
  headers: Record<string, string>,
  body: string | FormData | undefined,
  parse: ParseAnswer<T> | undefined,
): Promise<T> {
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
    if (timeout.signal.aborted)
      throw new TimeoutError(`${spec.method} ${printable} got no answer within ${settings.timeoutMs} ms`, { ...info, cause });
    throw new ConnectionError(`${spec.method} ${printable} failed: ${redact(String((cause as Error).message), settings.apiKey)}`, {
      ...info,
      cause,
    });
  } finally {
    clearTimeout(timer);
  }
  let parsed: unknown = text;
  const isJson = (response.headers.get('content-type') ?? '').includes('json') || /^\s*[{[]/.test(text);
  if (isJson && text.length > 0) {
    try {
      parsed = JSON.parse(text);
    } catch {
      if (response.ok)
        throw new InvalidResponseError(`${spec.method} ${printable} answered ${response.status} with malformed JSON`, {
          ...info,
          status: response.status,
          body: text.slice(0, 300),
        });
    }
  }
  // The platform may echo the key in an error; it is scrubbed before any message is built from it.
  if (!response.ok) throw errorFromResponse(response.status, redactDeep(parsed, settings.apiKey), response.headers, info);
  if (typeof parsed !== 'object' || parsed === null) {
    throw new InvalidResponseError(`${spec.method} ${printable} answered ${response.status} without a JSON object`, {
      ...info,
      status: response.status,
      body: text.slice(0, 300),
    });
  }
  if (!parse) return parsed as T;
  try {
    return parse(parsed);
  } catch (cause) {
    if (cause instanceof PlatformError) throw cause;
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new InvalidResponseError(
      `${spec.method} ${printable} answered ${response.status} with an unexpected body: ${redact(reason, settings.apiKey)}`,
      {
        ...info,
        status: response.status,
        body: redactDeep(parsed, settings.apiKey),
        cause,
      },
    );
  }
}

/** Waits `ms`: true when the time has passed, false as soon as `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

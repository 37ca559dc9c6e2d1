// One HTTP request exactly as written (method, path, Host and other headers, bytes): what fetch will not
// send (a foreign Host, a path with dot segments, an odd method), for tests that act as a hostile client.
import { Agent, request } from 'node:http';

export interface RawRequest {
  method?: string;
  /** Sent as is, no normalisation. */
  path: string;
  /** `host` here replaces the real one; `null` sends none. */
  headers?: Record<string, string | null>;
  body?: string | Uint8Array;
  agent?: Agent;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function rawHttp(base: string, r: RawRequest): Promise<RawAnswer> {
  const { hostname, port, host } = new URL(base);
  const headers: Record<string, string> = { host };
  for (const [k, v] of Object.entries(r.headers ?? {})) {
    if (v === null) delete headers[k.toLowerCase()];
    else headers[k.toLowerCase()] = v;
  }
  if (r.body !== undefined) headers['content-length'] = String(Buffer.byteLength(r.body));
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname: hostname.replace(/^\[|\]$/g, ''),
        port,
        path: r.path,
        method: r.method ?? 'GET',
        headers,
        setHost: false,
        ...(r.agent ? { agent: r.agent } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(r.body);
  });
}

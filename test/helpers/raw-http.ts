// One HTTP request exactly as written (method, path, Host and other headers, bytes): what fetch will not
// send (a foreign Host, a path with dot segments, an odd method), for tests that act as a hostile client.
import { Agent, request } from 'node:http';
import { connect } from 'node:net';

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

export interface SocketAnswer {
  /** The status line, e.g. `HTTP/1.1 408 Request Timeout` ('' when the server closed without a word). */
  status: string;
  body: string;
  /** When the server closed the connection (performance.now()). */
  closedAt: number;
}

/**
 * Bytes written on a bare TCP connection, which is then left open: half a request, or no HTTP at all,
 * as a slow or hostile client sends them. Resolves with what the server answered once it closes.
 */
export function rawSocket(base: string, bytes: string): Promise<SocketAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname.replace(/^\[|\]$/g, ''), () => socket.write(bytes));
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.on('close', () => {
      const split = answer.indexOf('\r\n\r\n');
      resolve({ status: answer.split('\r\n')[0]!, body: split < 0 ? '' : answer.slice(split + 4), closedAt: performance.now() });
    });
    socket.on('error', reject);
  });
}

// An async request listener for Node's http server, whose failures are answered instead of lost.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';

/**
 * Node's server ignores the promise a listener returns: a throw in an async one (a malformed percent
 * escape, a stream error, a rejected `after`) would be an unhandled rejection, which ends the test run,
 * and the request would hang. Here it is a 500 that names the error, or a dropped connection once the
 * head is out.
 */
export function asyncListener(listener: (req: IncomingMessage, res: ServerResponse) => Promise<unknown>): RequestListener {
  return (req, res) => {
    listener(req, res).catch((error: unknown) => {
      if (res.headersSent) res.destroy();
      else
        res
          .writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
          .end(error instanceof Error ? error.message : 'the test server failed');
    });
  };
}

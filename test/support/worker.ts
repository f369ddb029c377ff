import { createExecutionContext, env } from "cloudflare:test";
import worker from "../../src/index";

/**
 * The worker's own fetch handler, called in the test's isolate with the pool's real bindings.
 * The pool's `SELF` binding does the same through a service binding, but each `SELF.fetch` gets
 * slower with every request the pool has dispatched in that workerd (cloudflare/workers-sdk#15446:
 * measured here, 100 requests took 0.3 s, then 1.1, 2.5 and 4.9 s, while the worker's own fetch
 * stayed at 0.25 ms a request), which made long files such as test/security/every-route.test.ts
 * quadratic. Work the worker hands to `waitUntil` runs on as it would in production.
 */
export const SELF = {
  async fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    let req = new Request(input, init);
    // As on the wire: a body of known size comes with its Content-Length (the media-type and
    // size checks look at it), which a Request built in memory does not carry.
    if (req.body && !req.headers.has("content-length") && !req.headers.has("transfer-encoding")) {
      const body = await req.arrayBuffer();
      const headers = new Headers(req.headers);
      headers.set("content-length", String(body.byteLength));
      req = new Request(req.url, {
        method: req.method,
        headers,
        body,
        redirect: req.redirect,
        signal: req.signal,
      });
    }
    return worker.fetch!(
      req as Request<unknown, IncomingRequestCfProperties>,
      env as never,
      createExecutionContext(),
    );
  },
};

/**
 * Every request the browser suite's Node side makes (API helpers, the local servers' control
 * endpoints, the hostile relay) goes out on a connection of its own and closes it after the answer.
 *
 * Why: Node's fetch keeps an answered connection for the next request to the same origin and drops it
 * on its own timer, 2 s before the server's keep-alive hint (undici: 5 s hinted, kept 3 s). Node's
 * HTTP servers close an idle connection after 5 s (+1 s), workerd after 5 s. That margin holds
 * only while this process's event loop runs: a test that waits in a synchronous child process
 * (extension.ts's `buildExtension`, seconds under load; `d1` was one too) stops the timer, and the
 * next fetch is written on the kept connection as the server closes it ("other side closed").
 * A `connection: close` request header alone does not prevent this: it closes the connection after
 * its answer but is itself sent on an idle kept one if the pool has one. With keep-alive off here
 * (undici: `pipelining: 0`), no connection is ever idle, so no server can close one under a request.
 */
import { Agent, setGlobalDispatcher } from "undici";

setGlobalDispatcher(new Agent({ pipelining: 0 }));

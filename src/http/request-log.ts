import type { Context, MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { logJson, withLogContext } from "../lib/log";
import type { AppEnv } from "./types";

export { logJson };

/** Cloudflare's ray id (`cf-ray`, 16 hex digits and the colo) names the request in Cloudflare's own logs too. */
const RAY = /^[0-9a-f]{16}(-[A-Z0-9]{3,4})?$/i;

/** The request's id, for a log line written while handling it. */
export function requestIdOf(c: Context): string | undefined {
  return (c as Context<AppEnv>).get("requestId");
}

/**
 * Gives each request an id, answers it in `X-Request-Id`, and writes one structured line when the
 * request ends: the route's pattern (never the path: paths can hold secret tokens, /emergency/<token>),
 * the method, the status and the duration. The id is the incoming `cf-ray` when there is one, so a
 * report quoting the id finds both our line and Cloudflare's; else a random UUID. A client's own
 * `X-Request-Id` is not taken: ids in our logs are ours. Every request is logged in production;
 * development and the suites log only answers of 500 and above.
 */
export function requestLog(): MiddlewareHandler<AppEnv> {
  return async function requestLog(c, next) {
    const ray = c.req.header("cf-ray");
    const id = ray && RAY.test(ray) ? ray : crypto.randomUUID();
    c.set("requestId", id);
    const start = Date.now();
    // Every line logged while handling it, in any layer, carries the id (src/lib/log.ts).
    await withLogContext({ requestId: id }, next);
    try {
      c.res.headers.set("X-Request-Id", id);
    } catch {
      c.res = new Response(c.res.body, c.res);
      c.res.headers.set("X-Request-Id", id);
    }
    const status = c.res.status;
    if (status >= 500 || c.env.ENVIRONMENT === "production") {
      logJson(status >= 500 ? "error" : "info", "request", {
        requestId: id,
        method: c.req.method,
        route: routePath(c, -1),
        status,
        ms: Date.now() - start,
      });
    }
  };
}

import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./types";

/** Two years, with subdomains (RFC 6797 section 6.1); the vault never answers over plain http in production. */
export const HSTS_VALUE = "max-age=63072000; includeSubDomains";

/**
 * Strict-Transport-Security on every response of a production deployment, errors included: it
 * reads the raw ENVIRONMENT binding, so even a configuration that fails closed answers with it.
 * Development is served over http on localhost, where a browser ignores the header anyway
 * (RFC 6797 section 8.1), so it is not sent there. Static files get it from _headers.
 */
export function strictTransport(): MiddlewareHandler<AppEnv> {
  return async function strictTransport(c, next) {
    await next();
    if (c.env.ENVIRONMENT !== "production") return;
    try {
      c.res.headers.set("Strict-Transport-Security", HSTS_VALUE);
    } catch {
      c.res = new Response(c.res.body, c.res);
      c.res.headers.set("Strict-Transport-Security", HSTS_VALUE);
    }
  };
}

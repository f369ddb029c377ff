import type { MiddlewareHandler } from "hono";
import { openSessions } from "../db/sessions";
import { BOOKMARK_HEADER, formatBookmarks, parseBookmarks } from "../kernel/bookmarks";
import type { AppEnv } from "./types";

const READS = new Set(["GET", "HEAD"]);

/**
 * Every API request reads and writes D1 through sessions (src/db/sessions.ts), starting from the
 * bookmarks the client sent in `x-vault-bookmark`, and answers with the bookmarks it reached, so a
 * device's next request never reads older data than it wrote or saw, whichever replica serves it.
 */
export function d1Sessions(): MiddlewareHandler<AppEnv> {
  return async function d1Sessions(c, next) {
    const env = c.env;
    const sessions = openSessions(
      env as unknown as Record<string, unknown>,
      parseBookmarks(c.req.header(BOOKMARK_HEADER)),
      !READS.has(c.req.method),
      c.get("cost")?.sessionOpened,
    );
    c.env = sessions.env as unknown as AppEnv["Bindings"];
    try {
      await next();
    } finally {
      c.env = env;
    }
    const reached = sessions.bookmarks();
    if (reached.size === 0) return;
    try {
      c.res.headers.set(BOOKMARK_HEADER, formatBookmarks(reached));
    } catch {
      // A response built elsewhere (a fetch passthrough, a WebSocket upgrade) has immutable headers.
      if (c.res.status === 101) return;
      c.res = new Response(c.res.body, c.res);
      c.res.headers.set(BOOKMARK_HEADER, formatBookmarks(reached));
    }
  };
}

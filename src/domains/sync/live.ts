import type { Context, Hono } from "hono";
import { decodeJwt } from "jose";
import { liveSyncHub } from "../../../durable-objects/live-sync-hub";
import { accessTokenOf } from "../../http/auth";
import { route } from "../../http/route";
import type { AppEnv } from "../../http/types";
import { LIVE_SYNC_PROTOCOL } from "../../kernel/live-sync";
import { AppError, ErrorCode, forbidden } from "../../lib/errors";

/**
 * A cookie-authenticated handshake must come from the app's own pages (or an allowed extension):
 * a browser sends the cookie on a cross-site WebSocket handshake too, and no CORS check guards it
 * (cross-site WebSocket hijacking). A bearer token that authenticated the request is proof enough
 * by itself; merely offering the bearer subprotocol (empty, or beside a cookie) is not.
 */
function fromAllowedOrigin(c: Context<AppEnv>): boolean {
  if (c.get("credential") === "bearer") return true;
  const origin = c.req.header("origin");
  if (origin === undefined) return true;
  return origin === new URL(c.req.url).origin || c.get("config").corsOrigins.includes(origin);
}

export function registerLiveSyncRoute(app: Hono<AppEnv>) {
  route(app, {
    method: "get",
    path: "/api/sync/live",
    summary:
      "Live sync: a WebSocket on which the user's hub says when the change clock moved (no content)",
    tags: ["sync"],
    rateLimit: ["sync_live"],
    responses: {
      101: {
        description: `WebSocket (subprotocol ${LIVE_SYNC_PROTOCOL}): {type:"hello"|"changed", clock}`,
      },
      400: { description: "Not a WebSocket upgrade, or the subprotocol is not offered" },
      429: { description: "Too many open live connections for this account" },
    },
    handler: async (c) => {
      if (c.req.header("upgrade")?.toLowerCase() !== "websocket") {
        throw new AppError(ErrorCode.VALIDATION_ERROR, "Expected a WebSocket upgrade", {
          details: [{ field: "upgrade", message: "must be websocket" }],
          headers: { Upgrade: "websocket" },
        });
      }
      if (!fromAllowedOrigin(c)) throw forbidden("Live sync is open to the app's own pages");
      const offered = (c.req.header("sec-websocket-protocol") ?? "")
        .split(",")
        .map((p) => p.trim());
      if (!offered.includes(LIVE_SYNC_PROTOCOL)) {
        throw new AppError(
          ErrorCode.VALIDATION_ERROR,
          `Offer the ${LIVE_SYNC_PROTOCOL} subprotocol`,
          {
            details: [
              { field: "sec-websocket-protocol", message: `must include ${LIVE_SYNC_PROTOCOL}` },
            ],
          },
        );
      }
      const user = c.get("user");
      const exp = decodeJwt(accessTokenOf(c) ?? "").exp ?? 0;
      // The hub is the authenticated user's, by name: nothing in the request chooses another.
      const res = await liveSyncHub(c.env.LIVE_SYNC, user.id).connect(c.req.raw, {
        userId: user.id,
        expiresAt: exp * 1000,
        maxConnections: c.get("config").LIVE_SYNC_MAX_CONNECTIONS,
      });
      if (res.status === 429)
        throw new AppError(ErrorCode.RATE_LIMITED, "Too many live connections for this account", {
          headers: { "Retry-After": "60" },
        });
      return res;
    },
  });
}

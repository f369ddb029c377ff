import type { Context, MiddlewareHandler } from "hono";
import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from "jose";
import type { Config } from "../env";
import { base64url } from "../kernel/base64";
import { LIVE_SYNC_BEARER_PREFIX } from "../kernel/live-sync";
import { getHostCookie } from "./cookies";
import { AppError, ErrorCode } from "../lib/errors";
import type { AppEnv, AuthUser } from "./types";

const keySets = new Map<string, JWTVerifyGetKey>();

export function keySetFor(config: Config): JWTVerifyGetKey {
  const cacheKey = config.IDP_JWKS ?? `url:${config.IDP_JWKS_URL}`;
  let set = keySets.get(cacheKey);
  if (!set) {
    set = config.IDP_JWKS
      ? createLocalJWKSet(JSON.parse(config.IDP_JWKS))
      : createRemoteJWKSet(new URL(config.IDP_JWKS_URL!), { cacheMaxAge: 10 * 60 * 1000 });
    keySets.set(cacheKey, set);
  }
  return set;
}

function bearerOrCookie(header: string | undefined, cookie: string | undefined): string | null {
  if (header) {
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    return m ? m[1] : null;
  }
  return cookie ?? null;
}

const SEGMENT = /^[A-Za-z0-9_-]+$/;

/**
 * Structural check of a compact JWS (RFC 7515 section 7.1) before jose sees it: jose 6 leaves a
 * stray rejected promise behind on segments that do not decode, and a garbage token needs no
 * crypto to be refused.
 */
function isCompactJws(token: string): boolean {
  const parts = token.split(".");
  if (parts.length !== 3 || !parts.every((p) => SEGMENT.test(p) && p.length % 4 !== 1))
    return false;
  try {
    const header: unknown = JSON.parse(new TextDecoder().decode(base64url.decode(parts[0])));
    JSON.parse(new TextDecoder().decode(base64url.decode(parts[1])));
    return typeof header === "object" && header !== null;
  } catch {
    return false;
  }
}

export async function verifyAccessToken(config: Config, token: string): Promise<AuthUser> {
  if (!isCompactJws(token)) throw new Error("malformed token");
  const { payload } = await jwtVerify(token, keySetFor(config), {
    algorithms: ["RS256", "ES256"],
    issuer: config.IDP_ISSUER,
    audience: config.IDP_AUDIENCE,
    requiredClaims: ["sub", "exp"],
  });
  if (typeof payload.sub !== "string" || payload.sub.length === 0) throw new Error("no subject");
  const roles = Array.isArray(payload.roles)
    ? payload.roles.filter((r): r is string => typeof r === "string")
    : [];
  // Shares, sharing keys, emergency invitations and switch transfers are matched by this address,
  // so an address the provider has not said it verified is no address at all. A missing claim
  // counts as verified only where the deployment says its provider omits it (IDP_EMAIL_VERIFIED_CLAIM).
  const vouched =
    payload.email_verified === true ||
    (payload.email_verified === undefined && !config.emailVerifiedRequired);
  const authTime = typeof payload.auth_time === "number" ? payload.auth_time : undefined;
  const sid = typeof payload.sid === "string" ? payload.sid : "";
  return {
    id: payload.sub,
    email: typeof payload.email === "string" && vouched ? payload.email : undefined,
    authTime,
    // Without auth_time nothing ties two tokens to one sign-in: each token (its signature) stands alone.
    signIn:
      authTime !== undefined
        ? `${authTime}:${sid.slice(0, 200)}`
        : `token:${token.slice(token.lastIndexOf(".") + 1)}`,
    roles,
  };
}

/** The request's access token as presented, in the Authorization header or the auth cookie. */
export function accessTokenOf(c: Context<AppEnv>): string | null {
  return bearerOrCookie(presentedBearer(c), getHostCookie(c, c.get("config").AUTH_COOKIE));
}

/** The bearer credential offered (Authorization header, or a WebSocket's bearer subprotocol), if any. */
function presentedBearer(c: Context<AppEnv>): string | undefined {
  return c.req.header("authorization") ?? websocketBearer(c);
}

/**
 * A WebSocket handshake's bearer token, offered as a subprotocol (src/kernel/live-sync.ts: the
 * browser's WebSocket cannot send an Authorization header), as an Authorization header value.
 */
function websocketBearer(c: Context<AppEnv>): string | undefined {
  if (c.req.header("upgrade")?.toLowerCase() !== "websocket") return undefined;
  const offered = (c.req.header("sec-websocket-protocol") ?? "").split(",").map((p) => p.trim());
  const token = offered
    .find((p) => p.startsWith(LIVE_SYNC_BEARER_PREFIX))
    ?.slice(LIVE_SYNC_BEARER_PREFIX.length);
  return token ? `Bearer ${token}` : undefined;
}

/**
 * The token a DPoP proof is bound to (RFC 9449 `ath`): the Authorization header's. A token in the
 * HTTP-only cookie is one the page cannot read, so it cannot hash it; such a proof binds method,
 * URL, time and nonce, and the device key is what makes it worth anything.
 */
export function bearerTokenOf(c: Context<AppEnv>): string | null {
  const header = c.req.header("authorization");
  return header ? bearerOrCookie(header, undefined) : null;
}

/** Verifies the identity provider's JWT from the Bearer header or the auth cookie (DECISIONS D1). */
export function authenticate(): MiddlewareHandler<AppEnv> {
  return async function authenticate(c, next) {
    const config = c.get("config");
    const token = accessTokenOf(c);
    if (!token) throw new AppError(ErrorCode.UNAUTHORIZED, "Authentication required");
    let user: AuthUser;
    try {
      user = await verifyAccessToken(config, token);
    } catch {
      throw new AppError(ErrorCode.UNAUTHORIZED, "Invalid or expired token");
    }
    c.set("user", user);
    // A cookie rides along on any page's request; a bearer token is one the caller had to hold.
    // Checks that trust the second but not the first (live sync's origin check) read this, never
    // the raw headers, so an empty or unverifiable bearer offer cannot pass for one.
    c.set("credential", presentedBearer(c) !== undefined ? "bearer" : "cookie");
    await next();
  };
}

export function requireAdmin(): MiddlewareHandler<AppEnv> {
  return async function requireAdmin(c, next) {
    if (!c.get("user").roles.includes("admin"))
      throw new AppError(ErrorCode.FORBIDDEN, "Admin role required");
    await next();
  };
}

import type { MiddlewareHandler } from "hono";
import { base64url } from "../kernel/base64";
import { hmacSha256, timingSafeEqualStr } from "../lib/crypto";
import { AppError, ErrorCode } from "../lib/errors";
import type { AppEnv } from "./types";

export const CSRF_TTL_SECONDS = 12 * 60 * 60;

async function signature(secret: string, userId: string, exp: number): Promise<string> {
  return base64url.encode(await hmacSha256(secret, `csrf|${userId}|${exp}`));
}

/** Stateless CSRF token (DECISIONS D2): `<expiry>.<HMAC(user id, expiry)>`, valid for that user only. */
export async function issueCsrfToken(
  secret: string,
  userId: string,
  nowMs = Date.now(),
): Promise<{ token: string; expiresAt: number }> {
  const exp = Math.floor(nowMs / 1000) + CSRF_TTL_SECONDS;
  return { token: `${exp}.${await signature(secret, userId, exp)}`, expiresAt: exp };
}

export async function verifyCsrfToken(
  secret: string,
  userId: string,
  token: string,
  nowMs = Date.now(),
): Promise<boolean> {
  const m = /^(\d{1,12})\.([A-Za-z0-9_-]{20,100})$/.exec(token);
  if (!m) return false;
  const exp = Number(m[1]);
  if (exp * 1000 <= nowMs) return false;
  return timingSafeEqualStr(m[2], await signature(secret, userId, exp));
}

export function csrfProtection(): MiddlewareHandler<AppEnv> {
  return async function csrfProtection(c, next) {
    const token = c.req.header("x-csrf-token");
    const ok = token
      ? await verifyCsrfToken(c.get("config").CSRF_SECRET, c.get("user").id, token)
      : false;
    if (!ok)
      throw new AppError(ErrorCode.FORBIDDEN, token ? "Invalid CSRF token" : "Missing CSRF token");
    await next();
  };
}

import type { Context, MiddlewareHandler } from "hono";
import { dbFor } from "../db/client";
import { proofKey } from "../lib/dpop";
import { trustLevelOf, type ProvenKey } from "../db/device-trust";
import { bearerTokenOf } from "./auth";
import { AppError, ErrorCode } from "../lib/errors";
import type { AppEnv } from "./types";

/** The key behind this request's `DPoP` proof header (RFC 9449), checked once and only when asked. */
export function provenKeyOf(c: Context<AppEnv>): ProvenKey {
  let result: Promise<string | null> | undefined;
  return () => (result ??= proofKey(c.get("config").CSRF_SECRET, { method: c.req.method, url: c.req.url, proof: c.req.header("dpop"), accessToken: bearerTokenOf(c) }));
}

/** Age limit that device trust adds to sensitive operations on recognized and unknown devices (D3). */
export const UNTRUSTED_DEVICE_MAX_AGE = 300;

export type StepUpOptions = {
  /** The operation's own maximum sign-in age in seconds (D3's first list). */
  maxAge?: number;
  /** A sensitive operation (D3's second list): untrusted devices need a sign-in within 300 s. */
  sensitive?: boolean;
  /** Refused outright from an unknown device (D11: export, session-share viewing). */
  denyUnknownDevice?: boolean;
};

/**
 * Step-up authentication (RFC 9470): the token's `auth_time`, or a later 2FA code for this sign-in,
 * must be recent enough. A stale or
 * missing one gets 401 STEP_UP_REQUIRED with `WWW-Authenticate: Bearer
 * error="insufficient_user_authentication", max_age=N` so the client can re-authenticate.
 */
export function stepUp(opts: StepUpOptions): MiddlewareHandler<AppEnv> {
  return async function stepUp(c, next) {
    const user = c.get("user");
    let maxAge = opts.maxAge ?? Number.POSITIVE_INFINITY;
    if (opts.sensitive || opts.denyUnknownDevice) {
      const trust = await trustLevelOf(dbFor(c.env, user.id), user.id, c.req.header("x-device-fingerprint") ?? null, provenKeyOf(c));
      if (trust === "unknown" && opts.denyUnknownDevice) {
        throw new AppError(ErrorCode.FORBIDDEN, "Not allowed from an unregistered device");
      }
      if (opts.sensitive && trust !== "trusted") maxAge = Math.min(maxAge, UNTRUSTED_DEVICE_MAX_AGE);
    }
    if (!Number.isFinite(maxAge)) return next();
    // An account 2FA code accepted for this sign-in counts as a fresh sign-in (D20).
    const signedIn = Math.max(user.authTime ?? Number.NEGATIVE_INFINITY, user.secondFactorAt ?? Number.NEGATIVE_INFINITY);
    const age = Number.isFinite(signedIn) ? Math.floor(Date.now() / 1000) - signedIn : Number.POSITIVE_INFINITY;
    if (!(age <= maxAge)) {
      throw new AppError(ErrorCode.STEP_UP_REQUIRED, "Recent authentication required", {
        extra: { maxAge },
        headers: { "WWW-Authenticate": `Bearer error="insufficient_user_authentication", max_age=${maxAge}` },
      });
    }
    await next();
  };
}

import type { Context, MiddlewareHandler } from "hono";
import { dbFor } from "../db/client";
import { checkProof } from "../lib/dpop";
import { trustLevelOf, type ProvenKey } from "../db/device-trust";
import { takeProofOnce } from "../db/dpop-replay";
import { bearerTokenOf } from "./auth";
import { AppError, ErrorCode } from "../lib/errors";
import type { AppEnv } from "./types";

/** Each request's proof outcome: a request's middleware and handler may both ask, and the proof is taken once. */
const proven = new WeakMap<Request, Promise<string | null>>();

/**
 * The key behind this request's `DPoP` proof header (RFC 9449), checked once per request and only
 * when asked: a valid proof the user's store has already taken is a replay, and proves nothing.
 */
export function provenKeyOf(c: Context<AppEnv>): ProvenKey {
  return () => {
    let result = proven.get(c.req.raw);
    if (!result) proven.set(c.req.raw, (result = acceptedProofKey(c)));
    return result;
  };
}

async function acceptedProofKey(c: Context<AppEnv>): Promise<string | null> {
  const now = Date.now();
  const proof = await checkProof(
    c.get("config").CSRF_SECRET,
    {
      method: c.req.method,
      url: c.req.url,
      proof: c.req.header("dpop"),
      accessToken: bearerTokenOf(c),
    },
    now,
  );
  if (!proof) return null;
  const userId = c.get("user").id;
  return (await takeProofOnce(
    dbFor(c.env, userId),
    userId,
    proof.proofId,
    proof.expiresAt,
    Math.floor(now / 1000),
  ))
    ? proof.jkt
    : null;
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
      const trust = await trustLevelOf(
        dbFor(c.env, user.id),
        user.id,
        c.req.header("x-device-fingerprint") ?? null,
        provenKeyOf(c),
      );
      if (trust === "unknown" && opts.denyUnknownDevice) {
        throw new AppError(ErrorCode.FORBIDDEN, "Not allowed from an unregistered device");
      }
      if (opts.sensitive && trust !== "trusted")
        maxAge = Math.min(maxAge, UNTRUSTED_DEVICE_MAX_AGE);
    }
    if (!Number.isFinite(maxAge)) return next();
    // An account 2FA code accepted for this sign-in counts as a fresh sign-in (D20).
    const signedIn = Math.max(
      user.authTime ?? Number.NEGATIVE_INFINITY,
      user.secondFactorAt ?? Number.NEGATIVE_INFINITY,
    );
    const age = Number.isFinite(signedIn)
      ? Math.floor(Date.now() / 1000) - signedIn
      : Number.POSITIVE_INFINITY;
    if (!(age <= maxAge)) {
      throw new AppError(ErrorCode.STEP_UP_REQUIRED, "Recent authentication required", {
        extra: { maxAge },
        headers: {
          "WWW-Authenticate": `Bearer error="insufficient_user_authentication", max_age=${maxAge}`,
        },
      });
    }
    await next();
  };
}

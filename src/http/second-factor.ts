import type { MiddlewareHandler } from "hono";
import { dbFor } from "../db/client";
import { signInState } from "../db/second-factor";
import { AppError, ErrorCode } from "../lib/errors";
import type { AppEnv } from "./types";

/**
 * What a sign-in may reach before its 2FA code (DECISIONS D20): learning who it is and getting a
 * CSRF token (`/api/auth/*`), asking whether a code is needed, giving one, the health check, and
 * registering the device it signs in from.
 */
export function exemptFromSecondFactor(method: string, path: string): boolean {
  const m = method.toUpperCase();
  if (path.startsWith("/api/auth/") || path === "/api/health") return true;
  return (
    (m === "GET" && path === "/api/2fa/status") ||
    (m === "POST" && (path === "/api/2fa/verify" || path === "/api/devices"))
  );
}

/** The routes a sign-in reaches before its code that still count an accepted code for step-up. */
export function notesSecondFactor(method: string, path: string): boolean {
  return method.toUpperCase() === "POST" && path === "/api/devices";
}

/**
 * Account 2FA in force (D20): once a user's 2FA is confirmed, a sign-in reaches the API only after
 * a code was accepted for it. The time of a code the sign-in was asked for goes on the user for
 * step-up (D3), which counts it as a fresh sign-in; the code that confirmed an enrollment does not. With `refuse: false` (a route exempt from D20 that has a
 * step-up of its own: registering a new device) the code's time is noted and nothing is refused.
 */
export function requireSecondFactor(
  opts: { refuse: boolean } = { refuse: true },
): MiddlewareHandler<AppEnv> {
  return async function requireSecondFactor(c, next) {
    const user = c.get("user");
    const state = await signInState(dbFor(c.env, user.id), user.id, user.signIn);
    if (opts.refuse && state.required && state.verifiedAt === null) {
      throw new AppError(ErrorCode.TWO_FACTOR_REQUIRED, "This sign-in needs your two-factor code");
    }
    if (state.required && state.freshAt !== null)
      c.set("user", { ...user, secondFactorAt: state.freshAt });
    await next();
  };
}

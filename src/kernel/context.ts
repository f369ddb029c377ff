/** Who is calling and from where: what services and repos see of a request (never Hono's context). */
export type AuthUser = {
  id: string;
  /** The token's `email`, only when the provider verified it (`email_verified`; absent only where IDP_EMAIL_VERIFIED_CLAIM allows). */
  email?: string;
  /** Seconds since the epoch of the last real sign-in (`auth_time`). */
  authTime?: number;
  /**
   * Which sign-in this token belongs to (D20): its `auth_time` and `sid`, so a refreshed token of
   * the same sign-in has the same value; a token without `auth_time` is a sign-in of its own.
   */
  signIn: string;
  /** Epoch seconds of the last account 2FA code accepted for this sign-in, once the gate looked. */
  secondFactorAt?: number;
  roles: string[];
};

export type RequestMeta = { ip: string; userAgent: string; device: string | null };

/**
 * Only `CF-Connecting-IP` is trusted: Cloudflare's edge sets it, while `X-Forwarded-For` is whatever
 * the client wrote and would let it pick its own rate-limit bucket.
 */
export function requestMeta(req: { header(name: string): string | undefined }): RequestMeta {
  return {
    ip: req.header("cf-connecting-ip") ?? "unknown",
    userAgent: req.header("user-agent") ?? "",
    device: req.header("x-device-fingerprint") ?? null,
  };
}

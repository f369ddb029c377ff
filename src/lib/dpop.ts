import { calculateJwkThumbprint, EmbeddedJWK, jwtVerify, type JWK } from "jose";
import { base64url } from "../kernel/base64";
import { hmacSha256, timingSafeEqualStr } from "./crypto";

/** How long a server nonce is accepted (RFC 9449 section 8): it bounds how long a proof could be replayed. */
export const DPOP_NONCE_TTL_S = 300;
/** A proof's `iat` may be this far from our clock either way. */
const IAT_SKEW_S = 60;

const nonceMac = async (secret: string, t: string) =>
  base64url.encode(await hmacSha256(secret, `dpop-nonce|${t}`));

/** A stateless nonce: the time it was issued and a MAC over it. */
export async function issueNonce(secret: string, now = Date.now()): Promise<string> {
  const t = String(Math.floor(now / 1000));
  return `${t}.${await nonceMac(secret, t)}`;
}

/** The issue time (epoch seconds) of a nonce this server made and still accepts, else null. */
async function nonceIssuedAt(secret: string, nonce: unknown, now: number): Promise<number | null> {
  if (typeof nonce !== "string") return null;
  const m = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(nonce);
  if (!m) return null;
  const issued = Number(m[1]);
  const age = now / 1000 - issued;
  return age >= -IAT_SKEW_S &&
    age <= DPOP_NONCE_TTL_S &&
    timingSafeEqualStr(m[2], await nonceMac(secret, m[1]))
    ? issued
    : null;
}

/** RFC 9449 section 4.3: `htu` is the request URI without query and fragment. */
const htuOf = (url: string) => {
  const u = new URL(url);
  return `${u.origin}${u.pathname}`;
};

const sha256b64u = async (s: string) =>
  base64url.encode(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s))),
  );

export type ProofRequest = {
  method: string;
  url: string;
  proof: string | undefined;
  accessToken: string | null;
};

/** A proof that passed every check: its key, and what a replay store needs to take it only once. */
export type CheckedProof = {
  /** RFC 7638 thumbprint of the proof's key. */
  jkt: string;
  /** Fixed-size id of this proof: SHA-256 of the thumbprint and the `jti` (RFC 9449 section 11.1: jti is unique per key). */
  proofId: string;
  /** Epoch seconds after which this proof fails its own `iat` or nonce check, so need not be remembered. */
  expiresAt: number;
};

/**
 * Checks a DPoP proof (RFC 9449 section 4.3) for this request: ES256 over an embedded P-256 key,
 * bound to the method, the URL, the access token (`ath`) and a nonce this server issued. Returns
 * the key's thumbprint with the proof's id, or null when the proof is absent or fails any check.
 * Whether the proof was seen before is the caller's store to say (src/db/dpop-replay.ts).
 */
export async function checkProof(
  secret: string,
  req: ProofRequest,
  now = Date.now(),
): Promise<CheckedProof | null> {
  if (!req.proof || req.proof.length > 4096) return null;
  try {
    const { payload, protectedHeader } = await jwtVerify(req.proof, EmbeddedJWK, {
      typ: "dpop+jwt",
      algorithms: ["ES256"],
      maxTokenAge: DPOP_NONCE_TTL_S,
      clockTolerance: IAT_SKEW_S,
      currentDate: new Date(now),
    });
    if (
      payload.htm !== req.method.toUpperCase() ||
      payload.htu !== htuOf(req.url) ||
      typeof payload.jti !== "string" ||
      typeof payload.iat !== "number"
    )
      return null;
    const issued = await nonceIssuedAt(secret, payload.nonce, now);
    if (issued === null) return null;
    if (req.accessToken && payload.ath !== (await sha256b64u(req.accessToken))) return null;
    const jkt = await calculateJwkThumbprint(protectedHeader.jwk as JWK);
    // jose accepts iat up to maxTokenAge + clockTolerance old, and the nonce up to its TTL.
    const expiresAt = Math.ceil(
      Math.min(payload.iat + DPOP_NONCE_TTL_S + IAT_SKEW_S, issued + DPOP_NONCE_TTL_S),
    );
    return { jkt, proofId: await sha256b64u(`${jkt}|${payload.jti}`), expiresAt };
  } catch {
    return null;
  }
}

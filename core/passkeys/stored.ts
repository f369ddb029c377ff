/**
 * A passkey as an entry's sealed payload holds it (WebAuthn Level 3, "public key credential
 * source"): everything the authenticator keeps, the private key included, and so only ever inside
 * the entry's envelope. Byte strings are base64url without padding, as WebAuthn writes them.
 */
export type PasskeyAlg = -7 | -8;

export type StoredPasskey = {
  /** The credential id, base64url. */
  credential_id: string;
  rp_id: string;
  /** The relying party's name as the site gave it at creation (display only). */
  rp_name?: string;
  /** The site's user handle (`user.id`), base64url. */
  user_handle: string;
  user_name: string;
  display_name: string;
  /** COSE algorithm: -7 ES256 (P-256), -8 EdDSA (Ed25519). */
  alg: PasskeyAlg;
  /** The private key as a JWK (its public half with it: x, y for P-256; x for Ed25519). */
  private_key: JsonWebKey;
  sign_count: number;
  discoverable: boolean;
  created_at: string;
};

const B64URL = /^[A-Za-z0-9_-]+$/;

/** One passkey read from a payload, or null when it is not one this client can use. */
export function parsePasskey(v: unknown): StoredPasskey | null {
  if (!v || typeof v !== "object") return null;
  const p = v as Record<string, unknown>;
  const str = (k: string) => (typeof p[k] === "string" ? (p[k] as string) : null);
  const id = str("credential_id");
  const rp = str("rp_id");
  const handle = str("user_handle");
  const key = p.private_key;
  if (!id || !B64URL.test(id) || !rp || handle === null || (handle !== "" && !B64URL.test(handle)))
    return null;
  if (p.alg !== -7 && p.alg !== -8) return null;
  if (!key || typeof key !== "object" || typeof (key as JsonWebKey).kty !== "string") return null;
  const count =
    typeof p.sign_count === "number" && Number.isSafeInteger(p.sign_count) && p.sign_count >= 0
      ? p.sign_count
      : 0;
  const created = str("created_at");
  return {
    credential_id: id,
    rp_id: rp,
    ...(str("rp_name") ? { rp_name: str("rp_name")! } : {}),
    user_handle: handle,
    user_name: str("user_name") ?? "",
    display_name: str("display_name") ?? "",
    alg: p.alg,
    private_key: key as JsonWebKey,
    sign_count: count,
    discoverable: p.discoverable !== false,
    created_at: created && !Number.isNaN(Date.parse(created)) ? created : new Date(0).toISOString(),
  };
}

/** The passkeys of a payload's `passkeys` field; anything unreadable is left out. */
export function parsePasskeys(v: unknown): StoredPasskey[] {
  if (!Array.isArray(v)) return [];
  return v.map(parsePasskey).filter((p): p is StoredPasskey => p !== null);
}

/**
 * The spec's plaintext `passkey_label` for an entry with passkeys: the relying party's id, which
 * names a site as the plaintext `website` already does; user names and keys stay sealed.
 */
export function passkeyLabel(passkeys: readonly StoredPasskey[] | undefined): string | null {
  if (!passkeys?.length) return null;
  const rps = [...new Set(passkeys.map((p) => p.rp_id))];
  return rps.length === 1 ? rps[0]! : `${rps[0]} and ${rps.length - 1} more`;
}

/**
 * Passkeys moving in and out: the FIDO Alliance's Credential Exchange Format (CXF, JSON; its
 * "passkey" credential: credential id, rp id, user name, display name, user handle, and the
 * private key as PKCS#8, byte strings base64url) and Bitwarden's JSON export (a login's
 * `fido2Credentials`: key PKCS#8 base64url, credential id a GUID or "b64.<base64url>", the counter
 * and the discoverable flag as strings). Pure: no store, no network.
 */
import { base64url } from "../../src/kernel/base64";
import type { PasskeyAlg, StoredPasskey } from "./stored";

export type PasskeyFields = {
  credentialId: Uint8Array;
  rpId: string;
  rpName?: string;
  userHandle: Uint8Array;
  userName: string;
  displayName: string;
  pkcs8: Uint8Array;
  signCount?: number;
  discoverable?: boolean;
  createdAt?: string;
};

/** A PKCS#8 private key as the vault stores it (JWK), its algorithm read from the key: P-256, else Ed25519. */
async function jwkOf(
  pkcs8: Uint8Array<ArrayBuffer>,
): Promise<{ jwk: JsonWebKey; alg: PasskeyAlg }> {
  try {
    const k = await crypto.subtle.importKey(
      "pkcs8",
      pkcs8,
      { name: "ECDSA", namedCurve: "P-256" },
      true,
      ["sign"],
    );
    return { jwk: (await crypto.subtle.exportKey("jwk", k)) as JsonWebKey, alg: -7 };
  } catch {
    const k = await crypto.subtle.importKey("pkcs8", pkcs8, { name: "Ed25519" }, true, ["sign"]);
    return { jwk: (await crypto.subtle.exportKey("jwk", k)) as JsonWebKey, alg: -8 };
  }
}

export async function passkeyOf(f: PasskeyFields): Promise<StoredPasskey> {
  const { jwk, alg } = await jwkOf(new Uint8Array(f.pkcs8));
  return {
    credential_id: base64url.encode(f.credentialId),
    rp_id: f.rpId.toLowerCase(),
    ...(f.rpName ? { rp_name: f.rpName } : {}),
    user_handle: base64url.encode(f.userHandle),
    user_name: f.userName,
    display_name: f.displayName,
    alg,
    private_key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, ...(jwk.y ? { y: jwk.y } : {}), d: jwk.d },
    sign_count: f.signCount ?? 0,
    discoverable: f.discoverable ?? true,
    created_at: f.createdAt ?? new Date().toISOString(),
  };
}

/** The stored key as PKCS#8 (for an export). */
export async function pkcs8Of(p: StoredPasskey): Promise<Uint8Array> {
  const alg = p.alg === -7 ? { name: "ECDSA", namedCurve: "P-256" } : { name: "Ed25519" };
  const k = await crypto.subtle.importKey("jwk", p.private_key, alg, true, ["sign"]);
  // The cast: the Workers types (the importers are also type-checked with them) widen exportKey's result.
  return new Uint8Array((await crypto.subtle.exportKey("pkcs8", k)) as ArrayBuffer);
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Bitwarden's credential id: a GUID (its 16 bytes), or "b64." and the bytes in base64url. */
export function bitwardenCredentialId(id: string): Uint8Array {
  if (id.startsWith("b64.")) return base64url.decode(id.slice(4));
  if (!GUID.test(id)) throw new Error("not a Bitwarden credential id");
  return new Uint8Array(
    id
      .replace(/-/g, "")
      .match(/../g)!
      .map((h) => parseInt(h, 16)),
  );
}

type BitwardenFido2 = {
  credentialId?: unknown;
  keyValue?: unknown;
  keyAlgorithm?: unknown;
  rpId?: unknown;
  rpName?: unknown;
  userHandle?: unknown;
  userName?: unknown;
  userDisplayName?: unknown;
  counter?: unknown;
  discoverable?: unknown;
  creationDate?: unknown;
};

/** One of a Bitwarden login's `fido2Credentials`, or null when it is not a key this vault can use. */
export async function fromBitwarden(c: BitwardenFido2): Promise<StoredPasskey | null> {
  const s = (v: unknown) => (typeof v === "string" ? v : "");
  try {
    if (!s(c.credentialId) || !s(c.keyValue) || !s(c.rpId)) return null;
    const count = Number(c.counter ?? 0);
    return await passkeyOf({
      credentialId: bitwardenCredentialId(s(c.credentialId)),
      rpId: s(c.rpId),
      rpName: s(c.rpName) || undefined,
      userHandle: s(c.userHandle) ? base64url.decode(s(c.userHandle)) : new Uint8Array(),
      userName: s(c.userName),
      displayName: s(c.userDisplayName),
      pkcs8: base64url.decode(s(c.keyValue)),
      signCount: Number.isSafeInteger(count) && count >= 0 ? count : 0,
      discoverable: c.discoverable !== "false" && c.discoverable !== false,
      createdAt:
        s(c.creationDate) && !Number.isNaN(Date.parse(s(c.creationDate)))
          ? new Date(s(c.creationDate)).toISOString()
          : undefined,
    });
  } catch {
    return null;
  }
}

/** An item of a CXF file as this vault imports it: a login with its passkeys. */
export type CxfEntry = {
  name: string;
  url: string;
  username: string;
  password: string;
  notes: string;
  passkeys: StoredPasskey[];
};

type CxfCredential = { type?: unknown; [k: string]: unknown };
type CxfItem = {
  title?: unknown;
  creationAt?: unknown;
  scope?: { urls?: unknown };
  credentials?: unknown;
};

const field = (v: unknown): string =>
  typeof v === "string"
    ? v
    : v && typeof v === "object" && typeof (v as { value?: unknown }).value === "string"
      ? (v as { value: string }).value
      : "";

/** Whether a JSON document is a CXF export (a version and accounts of items). */
export function isCxf(doc: unknown): boolean {
  return (
    !!doc &&
    typeof doc === "object" &&
    "version" in doc &&
    Array.isArray((doc as { accounts?: unknown }).accounts)
  );
}

/**
 * The logins, notes and passkeys of a CXF document: per item its title, first URL, basic-auth
 * username and password, a note, and its passkeys. Items with no login, note or passkey are
 * skipped (a note alone is kept: toCxfItem writes a secure note so); so is a passkey whose key
 * does not import.
 */
export async function fromCxf(doc: unknown): Promise<{ entries: CxfEntry[]; skipped: number }> {
  if (!isCxf(doc)) throw new Error("This is not a Credential Exchange Format file");
  const entries: CxfEntry[] = [];
  let skipped = 0;
  for (const account of (doc as { accounts: { items?: unknown }[] }).accounts) {
    for (const item of (Array.isArray(account?.items) ? account.items : []) as CxfItem[]) {
      const creds = (Array.isArray(item.credentials) ? item.credentials : []) as CxfCredential[];
      const urls = Array.isArray(item.scope?.urls)
        ? (item.scope!.urls as unknown[]).filter((u): u is string => typeof u === "string")
        : [];
      const login = creds.find((c) => c.type === "basic-auth");
      const note = creds.find((c) => c.type === "note");
      const passkeys: StoredPasskey[] = [];
      const created =
        typeof item.creationAt === "number"
          ? new Date(item.creationAt * 1000).toISOString()
          : undefined;
      for (const c of creds.filter((x) => x.type === "passkey")) {
        try {
          passkeys.push(
            await passkeyOf({
              credentialId: base64url.decode(field(c.credentialId)),
              rpId: field(c.rpId),
              userHandle: base64url.decode(field(c.userHandle)),
              userName: field(c.username),
              displayName: field(c.userDisplayName),
              pkcs8: base64url.decode(field(c.key)),
              ...(created ? { createdAt: created } : {}),
            }),
          );
        } catch {
          skipped++;
        }
      }
      const username = field(login?.username) || passkeys[0]?.user_name || "";
      const password = field(login?.password);
      const notes = field(note?.content);
      if (!passkeys.length && !username && !password && !notes) {
        skipped++;
        continue;
      }
      const url = urls[0] ?? (passkeys[0] ? `https://${passkeys[0].rp_id}` : "");
      entries.push({
        name: field(item.title) || passkeys[0]?.rp_id || url || "Imported",
        url,
        username,
        password,
        notes,
        passkeys,
      });
    }
  }
  return { entries, skipped };
}

/** An entry as a CXF item: its login (basic-auth), note, and passkeys with their keys as PKCS#8. */
export async function toCxfItem(e: {
  id: string;
  name: string;
  url: string;
  createdAt: string;
  updatedAt: string;
  username: string;
  password: string;
  notes: string;
  passkeys?: StoredPasskey[];
}) {
  const credentials: Record<string, unknown>[] = [];
  if (e.username || e.password)
    credentials.push({
      type: "basic-auth",
      username: { fieldType: "string", value: e.username },
      password: { fieldType: "concealed-string", value: e.password },
    });
  if (e.notes) credentials.push({ type: "note", content: { fieldType: "string", value: e.notes } });
  for (const p of e.passkeys ?? []) {
    credentials.push({
      type: "passkey",
      credentialId: p.credential_id,
      rpId: p.rp_id,
      username: p.user_name,
      userDisplayName: p.display_name,
      userHandle: p.user_handle,
      key: base64url.encode(await pkcs8Of(p)),
    });
  }
  const secs = (iso: string) => Math.floor(Date.parse(iso) / 1000);
  return {
    id: base64url.encode(new TextEncoder().encode(e.id)),
    creationAt: secs(e.createdAt),
    modifiedAt: secs(e.updatedAt),
    title: e.name,
    credentials,
    ...(e.url ? { scope: { urls: [e.url], androidApps: [] } } : {}),
  };
}

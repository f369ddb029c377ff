/**
 * Secure links in the browser (docs/decisions/sharing.md, "Sharing: secure links (a secret or a file for anyone, the key in the link)"): the content is sealed
 * under a fresh AES-256-GCM key that travels only in the link's fragment; the server gets IV ‖
 * ciphertext. A passphrase adds a verifier (PBKDF2 over the passphrase and a random salt) that
 * the server checks before it counts a view; it opens nothing.
 */
import { base64url, fromBase64, toBase64 } from "../../src/kernel/base64";
import type { ApiClient, EndpointDef, WireBody, WireResponse } from "../api";
import { PBKDF2_ITERATIONS } from "../crypto";

export const LINK_ENDPOINTS = {
  create: {
    method: "POST",
    path: "/api/links",
    body: [
      "kind",
      "content",
      "expires_in_seconds",
      "max_views",
      "passphrase",
      "hide_sender",
      "label",
      "recipients",
    ],
    reads: ["link"],
  },
  list: { method: "GET", path: "/api/links", reads: ["links", "usage"] },
  revoke: { method: "DELETE", path: "/api/links/{id}", reads: ["link"] },
  meta: {
    method: "GET",
    path: "/api/links/public/{id}",
    reads: [
      "id",
      "kind",
      "size",
      "state",
      "expires_at",
      "views_left",
      "sender_email",
      "passphrase",
      "recipients_only",
    ],
  },
  code: {
    method: "POST",
    path: "/api/links/public/{id}/code",
    body: ["email"],
    reads: ["challenge", "expires_at", "message"],
  },
  open: {
    method: "POST",
    path: "/api/links/public/{id}/open",
    body: ["verifier", "challenge", "code"],
    reads: [],
  },
} as const satisfies Record<string, EndpointDef>;

export type SecureLink = WireResponse<"/api/links", "get">["links"][number];
export type LinkState = SecureLink["state"];
export type LinkUsage = WireResponse<"/api/links", "get">["usage"];
export type PublicLink = WireResponse<"/api/links/public/{id}", "get">;

/** What a link carries: labelled fields (a free text is one field), or a file with its name and type. */
export type LinkPayload =
  | { type: "text"; fields: { label: string; value: string }[] }
  | { type: "file"; name: string; mime: string; bytes: Uint8Array };

/** A field of an entry that may go into a link: `key` names it between the extension's parts, which never pass the value. */
export type EntryLinkField = {
  key: "name" | "website" | "username" | "password" | "notes" | "totp";
  label: string;
  value: string;
  checked: boolean;
};

/**
 * The fields of an entry a person may send by link, ticked as offered: the web app's "Share by
 * link" and the extension popup offer the same ones. Empty fields are left out; notes and the TOTP
 * secret (which makes codes for as long as it is kept) are sent only when ticked.
 */
export function entryLinkFields(
  entry: { name: string; website?: string | null },
  secrets: { username: string; password: string; notes: string; totp: string },
): EntryLinkField[] {
  const all: EntryLinkField[] = [
    { key: "name", label: "Name", value: entry.name, checked: true },
    { key: "website", label: "Website", value: entry.website ?? "", checked: true },
    { key: "username", label: "Username", value: secrets.username, checked: true },
    { key: "password", label: "Password", value: secrets.password, checked: true },
    { key: "notes", label: "Notes", value: secrets.notes, checked: false },
    { key: "totp", label: "TOTP secret", value: secrets.totp, checked: false },
  ];
  return all.filter((f) => f.value);
}

const IV_BYTES = 12;
const GCM_TAG_BYTES = 16;
const enc = new TextEncoder();

/** A link's file: 25 MB, the attachment limit the server applies to a link's content too. */
export const MAX_LINK_FILE_BYTES = 25 * 1024 * 1024;
/** The most content the server stores for a link: IV ‖ ciphertext ‖ tag of 25 MB (src/domains/attachments). */
export const MAX_LINK_CONTENT_BYTES = MAX_LINK_FILE_BYTES + IV_BYTES + GCM_TAG_BYTES;

/**
 * The bytes the server will count for this payload once sealed: the frame (header with the file's
 * name and type) rides inside the ciphertext, so a file just under 25 MB can still be too large.
 */
export const sealedBytes = (p: LinkPayload) =>
  IV_BYTES + 4 + headerOf(p).length + (p.type === "file" ? p.bytes.length : 0) + GCM_TAG_BYTES;

/**
 * Plaintext layout: 4-byte big-endian length of a JSON header, the header, then the file's bytes
 * (none for text). Name and type sit inside the ciphertext, not beside it.
 */
const headerOf = (p: LinkPayload) =>
  enc.encode(
    JSON.stringify(
      p.type === "text"
        ? { v: 1, type: "text", fields: p.fields }
        : { v: 1, type: "file", name: p.name, mime: p.mime },
    ),
  );

function frame(p: LinkPayload): Uint8Array {
  const header = headerOf(p);
  const body = p.type === "file" ? p.bytes : new Uint8Array(0);
  const out = new Uint8Array(4 + header.length + body.length);
  new DataView(out.buffer).setUint32(0, header.length);
  out.set(header, 4);
  out.set(body, 4 + header.length);
  return out;
}

function unframe(plain: Uint8Array): LinkPayload {
  const n = new DataView(plain.buffer, plain.byteOffset, plain.byteLength).getUint32(0);
  const header = JSON.parse(new TextDecoder().decode(plain.subarray(4, 4 + n))) as {
    type: string;
    fields?: { label: string; value: string }[];
    name?: string;
    mime?: string;
  };
  if (header.type === "file")
    return {
      type: "file",
      name: String(header.name ?? "file"),
      mime: String(header.mime ?? "application/octet-stream"),
      bytes: plain.subarray(4 + n),
    };
  return {
    type: "text",
    fields: (header.fields ?? []).map((f) => ({ label: String(f.label), value: String(f.value) })),
  };
}

/** Seals a payload under a new key; the fragment is the key, base64url. */
export async function sealPayload(p: LinkPayload): Promise<{ content: string; fragment: string }> {
  const raw = crypto.getRandomValues(new Uint8Array(32));
  const key = await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt"]);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const ct = new Uint8Array(
    await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, frame(p) as Uint8Array<ArrayBuffer>),
  );
  const out = new Uint8Array(IV_BYTES + ct.length);
  out.set(iv);
  out.set(ct, IV_BYTES);
  return { content: toBase64(out), fragment: base64url.encode(raw) };
}

export class LinkKeyError extends Error {}

/** Opens delivered content with the fragment's key; a wrong or cut key fails as LinkKeyError. */
export async function openPayload(fragment: string, content: string): Promise<LinkPayload> {
  let raw: Uint8Array<ArrayBuffer>;
  try {
    raw = base64url.decode(fragment) as Uint8Array<ArrayBuffer>;
  } catch {
    throw new LinkKeyError("The key in this link is damaged");
  }
  if (raw.length !== 32) throw new LinkKeyError("The key in this link is damaged");
  const key = await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["decrypt"]);
  const all = fromBase64(content);
  try {
    const plain = new Uint8Array(
      await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: all.subarray(0, IV_BYTES) },
        key,
        all.subarray(IV_BYTES),
      ),
    );
    return unframe(plain);
  } catch {
    throw new LinkKeyError("The key in this link does not open it");
  }
}

/** PBKDF2-SHA-256 (the vault's iteration count) of the passphrase and the link's salt: 32 bytes, base64. */
export async function passphraseVerifier(
  passphrase: string,
  salt: string,
  iterations = PBKDF2_ITERATIONS,
): Promise<string> {
  const base = await crypto.subtle.importKey(
    "raw",
    enc.encode(passphrase.normalize("NFKC")),
    "PBKDF2",
    false,
    ["deriveBits"],
  );
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt: fromBase64(salt), iterations },
    base,
    256,
  );
  return toBase64(new Uint8Array(bits));
}

export const newSalt = () => toBase64(crypto.getRandomValues(new Uint8Array(16)));

export type CreateOptions = {
  expiresInSeconds: number;
  maxViews: number;
  passphrase?: string;
  hideSender?: boolean;
  recipients?: string[];
  label?: string;
  /** A label already sealed under the vault key elsewhere (the command line's agent holds the key). */
  sealedLabel?: { iv: string; ciphertext: string };
};

/** A label's UTF-8 bytes fit the server's 256-byte sealed part with room for the GCM tag. */
export const MAX_LABEL_BYTES = 200;
const LABEL_AAD = enc.encode("credential-vault/secure-link-label/v1");

/**
 * The owner's label, sealed under the vault key, which may only wrap keys: the label's bytes are
 * carried as a raw HMAC key and wrapped with AES-GCM (bound to its purpose by associated data),
 * so the server holds ciphertext it cannot open.
 */
export async function sealLabel(
  vaultKey: CryptoKey,
  label: string,
): Promise<{ iv: string; ciphertext: string }> {
  const bytes = enc.encode(label);
  if (bytes.length === 0 || bytes.length > MAX_LABEL_BYTES) throw new RangeError("label length");
  const carrier = await crypto.subtle.importKey(
    "raw",
    bytes,
    { name: "HMAC", hash: "SHA-256" },
    true,
    ["sign"],
  );
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const wrapped = await crypto.subtle.wrapKey("raw", carrier, vaultKey, {
    name: "AES-GCM",
    iv,
    additionalData: LABEL_AAD,
  });
  return { iv: toBase64(iv), ciphertext: toBase64(new Uint8Array(wrapped)) };
}

/** The label in clear, or null when it does not open under this vault key. */
export async function openLabel(
  vaultKey: CryptoKey,
  sealed: { iv: string; ciphertext: string },
): Promise<string | null> {
  try {
    const carrier = await crypto.subtle.unwrapKey(
      "raw",
      fromBase64(sealed.ciphertext),
      vaultKey,
      { name: "AES-GCM", iv: fromBase64(sealed.iv), additionalData: LABEL_AAD },
      { name: "HMAC", hash: "SHA-256" },
      true,
      ["sign"],
    );
    return new TextDecoder().decode(await crypto.subtle.exportKey("raw", carrier));
  } catch {
    return null;
  }
}

/** Seals, uploads and answers the full link to hand out (origin/l/id#key); the label needs the vault key. */
export async function createLink(
  api: ApiClient,
  payload: LinkPayload,
  opts: CreateOptions,
  vaultKey?: CryptoKey,
  origin = location.origin,
): Promise<{ url: string; link: SecureLink }> {
  const { content, fragment } = await sealPayload(payload);
  const body: WireBody<"/api/links", "post"> = {
    kind: payload.type,
    content,
    expires_in_seconds: opts.expiresInSeconds,
    max_views: opts.maxViews,
    hide_sender: !!opts.hideSender,
  };
  if (opts.recipients?.length) body.recipients = opts.recipients;
  if (opts.sealedLabel) body.label = opts.sealedLabel;
  else if (opts.label && vaultKey) body.label = await sealLabel(vaultKey, opts.label);
  if (opts.passphrase) {
    const salt = newSalt();
    body.passphrase = { salt, verifier: await passphraseVerifier(opts.passphrase, salt) };
  }
  const { link } = await api.request(LINK_ENDPOINTS.create, { body });
  return { url: `${origin}/l/${link.id}#${fragment}`, link };
}

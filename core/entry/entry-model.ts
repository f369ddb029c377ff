/**
 * The parts of an entry's sealed payload beyond one login: what kind of item it is, the extra
 * addresses it is used on (each with its own match rule), custom fields, and the details of a card
 * or an identity. All of it travels only inside the encryption; parsing is lenient (a field of the
 * wrong shape is dropped, never the entry) because payloads come from every client version.
 */

import type { SshKey } from "./ssh-key";

/** A password an entry held before, and when it stopped being the current one. */
export type PastPassword = { password: string; changed_at: string };

export const ENTRY_KINDS = ["login", "note", "card", "identity", "ssh_key"] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

/**
 * How an address matches a page, the rules other managers export: the registrable domain and its
 * subdomains (the default), this exact host, a URL prefix, the exact URL, a regular expression, or
 * never (kept for reference only).
 */
export const MATCH_RULES = ["domain", "host", "starts_with", "exact", "regex", "never"] as const;
export type MatchRule = (typeof MATCH_RULES)[number];
export type EntryUrl = { url: string; match: MatchRule };

export const FIELD_TYPES = ["text", "hidden", "boolean"] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
export type CustomField = { name: string; value: string; type: FieldType };

export const CARD_KEYS = [
  "cardholder",
  "brand",
  "number",
  "exp_month",
  "exp_year",
  "code",
] as const;
export type CardDetails = Partial<Record<(typeof CARD_KEYS)[number], string>>;

export const IDENTITY_KEYS = [
  "title",
  "first_name",
  "middle_name",
  "last_name",
  "email",
  "phone",
  "company",
  "address1",
  "address2",
  "city",
  "state",
  "postal_code",
  "country",
  "username",
  "ssn",
  "passport",
  "license",
] as const;
export type IdentityDetails = Partial<Record<(typeof IDENTITY_KEYS)[number], string>>;

export type EntryModel = {
  kind?: EntryKind;
  urls?: EntryUrl[];
  fields?: CustomField[];
  card?: CardDetails;
  identity?: IdentityDetails;
  /** An SSH key (ssh-key.ts): the OpenSSH private key file, its public line and fingerprint. */
  ssh?: SshKey;
};

/** The payload keys this module owns (a client that knows them does not carry them as unknown). */
export const MODEL_KEYS = ["kind", "urls", "fields", "card", "identity", "ssh"] as const;

const isIn = <T extends string>(list: readonly T[], v: unknown): v is T =>
  typeof v === "string" && (list as readonly string[]).includes(v);

function details<K extends string>(
  keys: readonly K[],
  v: unknown,
): Partial<Record<K, string>> | undefined {
  if (!v || typeof v !== "object") return undefined;
  const out: Partial<Record<K, string>> = {};
  for (const k of keys) {
    const s = (v as Record<string, unknown>)[k];
    if (typeof s === "string" && s !== "") out[k] = s;
  }
  return Object.keys(out).length ? out : undefined;
}

/** The model's fields read from a parsed payload; only well-formed values are kept, unset ones left out. */
export function parseModel(obj: Record<string, unknown>): EntryModel {
  const out: EntryModel = {};
  if (isIn(ENTRY_KINDS, obj.kind) && obj.kind !== "login") out.kind = obj.kind;
  if (Array.isArray(obj.urls)) {
    const urls = (obj.urls as unknown[]).flatMap((u) => {
      const o = u as Record<string, unknown> | null;
      return o && typeof o.url === "string" && o.url.trim()
        ? [{ url: o.url.trim(), match: isIn(MATCH_RULES, o.match) ? o.match : "domain" }]
        : [];
    });
    if (urls.length) out.urls = urls;
  }
  if (Array.isArray(obj.fields)) {
    const fields = (obj.fields as unknown[]).flatMap((f) => {
      const o = f as Record<string, unknown> | null;
      if (!o || typeof o.name !== "string") return [];
      const value =
        typeof o.value === "string" ? o.value : typeof o.value === "boolean" ? String(o.value) : "";
      return [{ name: o.name, value, type: isIn(FIELD_TYPES, o.type) ? o.type : "text" }];
    });
    if (fields.length) out.fields = fields;
  }
  const card = details(CARD_KEYS, obj.card);
  if (card) out.card = card;
  const identity = details(IDENTITY_KEYS, obj.identity);
  if (identity) out.identity = identity;
  const ssh = obj.ssh as Record<string, unknown> | null | undefined;
  if (
    ssh &&
    typeof ssh.private_key === "string" &&
    typeof ssh.public_key === "string" &&
    typeof ssh.fingerprint === "string"
  )
    out.ssh = {
      private_key: ssh.private_key,
      public_key: ssh.public_key,
      fingerprint: ssh.fingerprint,
    };
  return out;
}

export const kindOf = (m: EntryModel): EntryKind => m.kind ?? "login";

/** A card number shown masked: its last four digits only. */
export const maskedCardNumber = (n: string) =>
  n.replace(/\s+/g, "").length > 4 ? `•••• ${n.replace(/\s+/g, "").slice(-4)}` : n;

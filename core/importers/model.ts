/**
 * What every importer produces: one item read from a source file, in plaintext, ready for the
 * client to encrypt (V3), with what was changed on the way in and why; and the items left out,
 * each with its reason. Nothing a file holds is dropped without a word.
 */
import { websiteHost } from "../../src/kernel/hostname";
import type {
  CardDetails,
  CustomField,
  EntryKind,
  EntryUrl,
  IdentityDetails,
  MatchRule,
  PastPassword,
} from "../entry";
import type { StoredPasskey } from "../passkeys";

export type ImportedCredential = {
  name: string;
  url: string | null;
  /** Hostname of `url`, lower case without `www.`, as the vault stores `website`. */
  website: string | null;
  username: string;
  password: string;
  notes: string;
  /** An otpauth:// URI or a base32 secret, as the source gave it. */
  totp: string | null;
  tags: string[];
  folder: string | null;
  favorite: boolean;
  kind: EntryKind;
  /** Addresses beyond the first, each with its match rule. */
  urls: EntryUrl[];
  fields: CustomField[];
  card?: CardDetails;
  identity?: IdentityDetails;
  /** Earlier passwords, newest first. */
  history: PastPassword[];
  /** Passkeys the source held for this login (keys already in the vault's JWK form). */
  passkeys?: StoredPasskey[];
  /**
   * What the source called the item when the vault keeps it as another kind ("bank account",
   * "Wi-Fi network"): the preview counts by it.
   */
  sourceKind?: string;
  /** What was changed on the way in (an archived item tagged, a collection made a tag, …). */
  changes: string[];
};

/** An item of the file that is not imported, and why. */
export type Skipped = { name: string; reason: string };
export type ParseOutput = { credentials: ImportedCredential[]; skipped: Skipped[] };

export const clean = (v: unknown) =>
  typeof v === "string" ? v.trim() : v == null ? "" : String(v).trim();
export const truthy = (v: string) => ["1", "true", "yes", "y"].includes(v.trim().toLowerCase());
export const splitTags = (v: string, sep: RegExp) =>
  v
    .split(sep)
    .map((t) => t.trim())
    .filter(Boolean);

export type CredentialParts = Partial<Omit<ImportedCredential, "url" | "urls">> & {
  url?: string | null;
  urls?: (string | EntryUrl)[];
};

/** Line ends as the vault keeps them: `\n` (Windows' `\r\n` and old Mac `\r` would show as extra lines or not at all). */
export const lines = (v: string) => v.replace(/\r\n?/g, "\n");

/**
 * Chrome and Google Password Manager write an Android app's login as
 * `android://<signing-key hash>@<package>/`; Bitwarden and others name the app `androidapp://<package>`.
 */
const ANDROID = /^android:\/\/[^@]*@([A-Za-z][\w]*(?:\.[A-Za-z_][\w]*)+)\/?$/;
const APP = /^androidapp:\/\//i;

/** A credential from what a format read; the first address becomes `url`, the rest `urls`. */
export function credential(parts: CredentialParts): ImportedCredential {
  const changes = [...(parts.changes ?? [])];
  const all = [...(parts.url ? [parts.url] : []), ...(parts.urls ?? [])]
    .map(
      (u): EntryUrl =>
        typeof u === "string"
          ? { url: clean(u), match: "domain" }
          : { url: clean(u.url), match: u.match },
    )
    .map((u) => {
      const app = ANDROID.exec(u.url)?.[1];
      if (!app) return u;
      changes.push(
        `Android app address kept as androidapp://${app} (its signing-key hash is not kept)`,
      );
      return { ...u, url: `androidapp://${app}` };
    })
    .filter((u) => u.url !== "");
  const seen = new Set<string>();
  const unique = all.filter((u) => !seen.has(u.url) && seen.add(u.url));
  const url = unique[0]?.url ?? null;
  // An app's package name (com.example.app) is not a website's host.
  const website = url && APP.test(url) ? null : websiteHost(url);
  const fields = (parts.fields ?? [])
    .filter((f) => f.name.trim() !== "" || f.value !== "")
    .map((f) => ({ ...f, value: lines(f.value) }));
  return {
    name: clean(parts.name) || website || clean(parts.username) || "Untitled",
    url,
    website,
    username: clean(parts.username),
    password: typeof parts.password === "string" ? parts.password : "",
    notes: typeof parts.notes === "string" ? lines(parts.notes) : "",
    totp: clean(parts.totp) || null,
    tags: parts.tags ?? [],
    folder: clean(parts.folder) || null,
    favorite: parts.favorite ?? false,
    kind: parts.kind ?? "login",
    urls: unique.slice(1),
    fields,
    ...(parts.card && Object.keys(parts.card).length ? { card: parts.card } : {}),
    ...(parts.identity && Object.keys(parts.identity).length ? { identity: parts.identity } : {}),
    history: (parts.history ?? []).filter((h) => h.password !== ""),
    ...(parts.passkeys?.length ? { passkeys: parts.passkeys } : {}),
    ...(parts.sourceKind ? { sourceKind: parts.sourceKind } : {}),
    changes,
  };
}

/** A match rule from a number of the scheme most managers share (0 domain … 5 never). */
export const matchRule = (n: unknown): MatchRule =>
  (["domain", "host", "starts_with", "exact", "regex", "never"] as const)[
    typeof n === "number" ? n : -1
  ] ?? "domain";

/** Whether an item holds anything worth storing. */
export function hasContent(c: ImportedCredential): boolean {
  return !!(
    c.username ||
    c.password ||
    c.notes.trim() ||
    c.totp ||
    c.fields.length ||
    c.card ||
    c.identity ||
    c.passkeys?.length ||
    c.kind !== "login"
  );
}

/**
 * The credentials that hold something, the empty ones moved to `skipped` with the reason: an empty
 * entry is noise the person would have to find and delete.
 */
export function finish(out: ParseOutput): ParseOutput {
  const credentials: ImportedCredential[] = [];
  for (const c of out.credentials) {
    if (hasContent(c)) credentials.push(c);
    else
      out.skipped.push({
        name: c.name,
        reason: "nothing to store: no username, password, notes, TOTP or fields",
      });
  }
  return { credentials, skipped: out.skipped };
}

export class ImportFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ImportFormatError";
  }
}

/** JSON of a file, or a format error naming the format it was read as. */
export function readJson(text: string, label: string): unknown {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    throw new ImportFormatError(`The ${label} file is not valid JSON`);
  }
}

import type { Db } from "../../db/client";
import type { RegistryOverrideRow } from "../../db/schema";
import { BUILTIN_SERVICES } from "../../kernel/registry/services";
import {
  GENERIC_EMAIL_SELECTORS,
  GENERIC_FORGOT_SELECTORS,
  GENERIC_OTP,
  GENERIC_SUBMIT_SELECTORS,
  GENERIC_SUBMIT_TEXT,
  GENERIC_SUCCESS,
  DEFAULT_REQUIREMENTS,
} from "../../kernel/registry/build";
import { candidateHosts, normalizeHost } from "../../kernel/hostname";
import { FIELD_COLUMNS, type ApiField } from "./mapping";
import * as repo from "./repo";
import { PASSKEY_SUPPORT_TYPES, type BuiltinService, type PasswordRequirements } from "./schema";

/** Spec "Resolution": overrides are read from the database at most every 30 seconds per isolate. */
export const REGISTRY_CACHE_TTL_MS = 30_000;

// Typed as the domain's schema: the built-in data (typed by inference, src/kernel/registry) must fit it.
const BUILTIN = new Map<string, BuiltinService>(BUILTIN_SERVICES.map((s) => [s.domain, s]));

let cache: { loadedAt: number; byDomain: Map<string, RegistryOverrideRow> } | null = null;

export async function refreshRegistryCache(db: Db): Promise<void> {
  const rows = await repo.activeOverrides(db);
  cache = { loadedAt: Date.now(), byDomain: new Map(rows.map((r) => [r.domain, r])) };
}

async function overrides(db: Db): Promise<Map<string, RegistryOverrideRow>> {
  if (!cache || Date.now() - cache.loadedAt >= REGISTRY_CACHE_TTL_MS)
    await refreshRegistryCache(db);
  return (cache as NonNullable<typeof cache>).byDomain;
}

/** For tests of the refresh period: forget the cache as a restart would. */
export function resetRegistryCacheForTests(): void {
  cache = null;
}

export type ResolvedService = {
  domain: string;
  name: string;
  known: boolean;
  source: "builtin" | "override" | "merged" | "generic";
  category: string;
  logoUrl: string | null;
  loginUrl: string;
  resetUrl: string | null;
  loginType: BuiltinService["login_type"];
  browserType: "chromium" | "stealth";
  senderPatterns: string[];
  mailboxQueries: string[];
  otpPatterns: RegExp[];
  linkPatterns: RegExp[];
  successIndicators: string[];
  forgotPasswordSelectors: string[];
  emailInputSelectors: string[];
  submitSelectors: string[];
  submitButtonText: string[];
  skipSubmitPatterns: string[];
  passwordRequirements: PasswordRequirements;
};

/** Invalid expressions are dropped silently (spec "Resolution"). */
export function compilePatterns(
  patterns: readonly string[] | null | undefined,
  flags = "i",
): RegExp[] {
  const out: RegExp[] = [];
  for (const p of patterns ?? []) {
    try {
      out.push(new RegExp(p, flags));
    } catch {
      continue;
    }
  }
  return out;
}

function generic(host: string): BuiltinService {
  return {
    domain: host,
    name: host.split(".")[0].replace(/^./, (c) => c.toUpperCase()),
    category: "other",
    login_url: `https://${host}/login`,
    reset_url: `https://${host}/forgot-password`,
    login_type: "password_reset",
    browser_type: "chromium",
    sender_patterns: [`@${host}`],
    gmail_search_queries: [`from:${host} subject:(password OR reset) newer_than:1d`],
    otp_patterns: GENERIC_OTP,
    link_patterns: [],
    success_indicators: GENERIC_SUCCESS,
    forgot_password_selectors: GENERIC_FORGOT_SELECTORS,
    email_input_selectors: GENERIC_EMAIL_SELECTORS,
    submit_selectors: GENERIC_SUBMIT_SELECTORS,
    submit_button_text: GENERIC_SUBMIT_TEXT,
    skip_submit_patterns: [],
    password_requirements: DEFAULT_REQUIREMENTS,
  };
}

/** Non-null override fields replace built-in ones; null fields leave them (spec "Resolution"). */
export function mergeOverride(base: BuiltinService, row: RegistryOverrideRow): BuiltinService {
  const merged: Record<string, unknown> = { ...base };
  for (const [field, column] of Object.entries(FIELD_COLUMNS) as [
    ApiField,
    keyof RegistryOverrideRow,
  ][]) {
    const v = row[column];
    if (v !== null && v !== undefined) merged[field] = v;
  }
  return merged as BuiltinService;
}

function toResolved(s: BuiltinService, source: ResolvedService["source"]): ResolvedService {
  return {
    domain: s.domain,
    name: s.name,
    known: source !== "generic",
    source,
    category: s.category,
    logoUrl: s.logo_url ?? null,
    loginUrl: s.login_url,
    resetUrl: s.reset_url ?? null,
    loginType: s.login_type,
    browserType: s.browser_type ?? "chromium",
    senderPatterns: s.sender_patterns,
    mailboxQueries: s.gmail_search_queries,
    otpPatterns: compilePatterns(s.otp_patterns),
    linkPatterns: compilePatterns(s.link_patterns),
    successIndicators: s.success_indicators ?? GENERIC_SUCCESS,
    forgotPasswordSelectors: s.forgot_password_selectors ?? GENERIC_FORGOT_SELECTORS,
    emailInputSelectors: s.email_input_selectors,
    submitSelectors: s.submit_selectors,
    submitButtonText: s.submit_button_text ?? GENERIC_SUBMIT_TEXT,
    skipSubmitPatterns: s.skip_submit_patterns ?? [],
    passwordRequirements: { ...DEFAULT_REQUIREMENTS, ...s.password_requirements },
  };
}

/**
 * The configuration for a site: an override for the host or a parent domain, merged onto the
 * built-in entry if there is one; else the built-in entry; else generic defaults for that host.
 */
export async function resolveService(db: Db, urlOrDomain: string): Promise<ResolvedService> {
  const host = normalizeHost(urlOrDomain) ?? urlOrDomain;
  const ov = await overrides(db);
  for (const h of candidateHosts(host)) {
    const row = ov.get(h);
    const builtin = BUILTIN.get(h);
    if (row)
      return toResolved(mergeOverride(builtin ?? generic(h), row), builtin ? "merged" : "override");
    if (builtin) return toResolved(builtin, "builtin");
  }
  return toResolved(generic(host), "generic");
}

/** What a signed-in person's client may know of a site's passkeys: no admin fields, no automation. */
export type PasskeySite = {
  domain: string;
  name: string;
  passkey_support_type: (typeof PASSKEY_SUPPORT_TYPES)[number];
  /** Where the site lets a person add a passkey; https only (anything else is given as null). */
  passkey_setup_url: string | null;
};

const httpsOnly = (u: string | null | undefined): string | null => {
  if (!u) return null;
  try {
    return new URL(u).protocol === "https:" ? u : null;
  } catch {
    return null;
  }
};

/**
 * Every site the registry says offers passkeys, resolved as the automation resolves a site (an
 * active override's non-null fields over the built-in entry), from the same 30-second cache.
 */
export async function passkeySites(db: Db): Promise<PasskeySite[]> {
  const ov = await overrides(db);
  const out: PasskeySite[] = [];
  for (const domain of new Set([...BUILTIN.keys(), ...ov.keys()])) {
    const builtin = BUILTIN.get(domain);
    const row = ov.get(domain);
    const type = row?.passkeySupportType ?? builtin?.passkey_support_type;
    if (!type || !(PASSKEY_SUPPORT_TYPES as readonly string[]).includes(type)) continue;
    out.push({
      domain,
      name: row?.name ?? builtin?.name ?? domain,
      passkey_support_type: type as PasskeySite["passkey_support_type"],
      passkey_setup_url: httpsOnly(row?.passkeySetupUrl ?? builtin?.passkey_setup_url),
    });
  }
  return out.sort((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));
}

import { z } from "zod";
import {
  BROWSER_TYPES,
  CATEGORIES,
  LOGIN_TYPES,
  PASSKEY_SUPPORT_TYPES,
  type PasswordRequirements as SharedPasswordRequirements,
} from "../../kernel/password-rules";

/**
 * The service registry override of the spec ("Service registry override"). The same schema
 * validates admin input and every built-in entry, so the data in the repo can never hold a value
 * an admin could not have written.
 */

// The registry's shared vocabulary lives in the pure layer, where the extension reads it too.
export { BROWSER_TYPES, CATEGORIES, LOGIN_TYPES, PASSKEY_SUPPORT_TYPES };

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** Lower-cases and drops a leading `www.` before checking, as the spec's domain constraint says. */
export function normalizeDomain(raw: string): string {
  const d = raw.trim().toLowerCase().replace(/\.$/, "");
  return d.startsWith("www.") ? d.slice(4) : d;
}

export function isValidHostname(d: string): boolean {
  return d.length >= 3 && d.length <= 253 && d.split(".").every((l) => LABEL.test(l));
}

export const domainField = z
  .string()
  .max(260)
  .transform(normalizeDomain)
  .pipe(z.string().min(3).max(253).refine(isValidHostname, "must be a valid hostname"));

const httpUrl = z.url({ protocol: /^https?$/ }).max(2048);

/**
 * A CSS selector never needs markup, declaration blocks, escapes or URL functions; any of these
 * means someone is trying to smuggle script or style into the page the automation drives.
 */
const SELECTOR_INJECTION = [
  /[<{};`\\]/,
  /javascript\s*:/i,
  /vbscript\s*:/i,
  /data\s*:\s*text\/html/i,
  /expression\s*\(/i,
  /url\s*\(/i,
  /@import/i,
  /\bon[a-z]+\s*=/i,
  /<\/?script/i,
];

export function isSafeSelector(s: string): boolean {
  return s.trim().length > 0 && !SELECTOR_INJECTION.some((re) => re.test(s));
}

const selector = (max: number) =>
  z.string().min(1).max(max).refine(isSafeSelector, "selector contains disallowed content");
const list = <T extends z.ZodType>(item: T, max: number) => z.array(item).max(max);

export const PasswordRequirements = z
  .object({
    minLength: z.number().int().min(1).max(128).optional(),
    maxLength: z.number().int().min(1).max(256).optional(),
    requireUppercase: z.boolean().optional(),
    requireLowercase: z.boolean().optional(),
    requireNumbers: z.boolean().optional(),
    requireSymbols: z.boolean().optional(),
    disallowedChars: z.string().max(50).optional(),
    specificSymbols: z.string().min(1).max(50).optional(),
  })
  .strict()
  .refine(
    (r) => r.minLength === undefined || r.maxLength === undefined || r.minLength <= r.maxLength,
    {
      message: "minLength must not exceed maxLength",
      path: ["minLength"],
    },
  );
export type PasswordRequirements = z.infer<typeof PasswordRequirements>;

/** The validator and the browsers' type are one shape: a field added to one alone fails to compile. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameShape: Same<PasswordRequirements, SharedPasswordRequirements> = true;
void sameShape;

export const RecoveryMethod = z
  .object({ primary: z.string().min(1).max(100), secondary: z.string().min(1).max(100).optional() })
  .strict();

/** Every optional field of an override; null clears it (the built-in value then applies). */
export const overrideFields = {
  logo_url: httpUrl,
  category: z.enum(CATEGORIES),
  login_url: httpUrl,
  reset_url: httpUrl,
  passkey_setup_url: httpUrl,
  passkey_support_type: z.enum(PASSKEY_SUPPORT_TYPES),
  login_type: z.enum(LOGIN_TYPES),
  browser_type: z.enum(BROWSER_TYPES),
  sender_patterns: list(z.string().min(1).max(254), 20),
  gmail_search_queries: list(z.string().min(1).max(500), 20),
  otp_patterns: list(z.string().min(1).max(500), 20),
  link_patterns: list(z.string().min(1).max(500), 20),
  success_indicators: list(z.string().min(1).max(200), 20),
  forgot_password_selectors: list(selector(500), 20),
  email_input_selectors: list(selector(500), 20),
  submit_selectors: list(selector(500), 20),
  submit_button_text: list(z.string().min(1).max(100), 10),
  skip_submit_patterns: list(z.string().min(1).max(100), 10),
  password_requirements: PasswordRequirements,
  recovery_method: RecoveryMethod,
  notes: z.string().max(5000),
  is_verified: z.boolean(),
} as const;

type Fields = typeof overrideFields;
const nullableFields = Object.fromEntries(
  Object.entries(overrideFields).map(([k, v]) => [k, v.nullable().optional()]),
) as {
  [K in keyof Fields]: z.ZodOptional<z.ZodNullable<Fields[K]>>;
};

export const CreateOverrideBody = z
  .object({ domain: domainField, name: z.string().trim().min(1).max(200), ...nullableFields })
  .strict();
export type CreateOverrideBody = z.infer<typeof CreateOverrideBody>;

export const UpdateOverrideBody = z
  .object({ name: z.string().trim().min(1).max(200).optional(), ...nullableFields })
  .strict()
  .refine((b) => Object.keys(b).length > 0, {
    message: "at least one field is required",
    path: ["body"],
  });
export type UpdateOverrideBody = z.infer<typeof UpdateOverrideBody>;

export const DomainParam = z.object({ domain: domainField });

export const ListOverridesQuery = z.object({
  search: z.string().max(200).optional(),
  category: z.enum(CATEGORIES).optional(),
  active_only: z
    .enum(["true", "false"])
    .optional()
    .transform((v) => v === "true"),
});

/** A built-in entry: the override shape with every automation field filled in. */
export const BuiltinService = CreateOverrideBody.extend({
  category: overrideFields.category,
  login_url: overrideFields.login_url,
  reset_url: overrideFields.reset_url,
  login_type: overrideFields.login_type,
  sender_patterns: overrideFields.sender_patterns.min(1),
  gmail_search_queries: overrideFields.gmail_search_queries.min(1),
  otp_patterns: overrideFields.otp_patterns,
  link_patterns: overrideFields.link_patterns.min(1),
  email_input_selectors: overrideFields.email_input_selectors.min(1),
  submit_selectors: overrideFields.submit_selectors.min(1),
  password_requirements: overrideFields.password_requirements,
});
export type BuiltinService = z.infer<typeof BuiltinService>;

const OverrideOut = z
  .object({
    domain: z.string(),
    name: z.string(),
    is_active: z.boolean(),
    created_by: z.string().nullable(),
    created_at: z.string(),
  })
  .loose();
export const OverrideResponse = z.object({ override: OverrideOut });
export const CreateOverrideResponse = z.object({ override: OverrideOut, created: z.literal(true) });
export const ListOverridesResponse = z.object({
  overrides: z.array(OverrideOut),
  count: z.number().int(),
});

/** The passkey sites a signed-in person's client reads (resolve.ts `passkeySites`). */
export const PasskeySitesResponse = z.object({
  sites: z.array(
    z.object({
      domain: z.string(),
      name: z.string(),
      passkey_support_type: z.enum(PASSKEY_SUPPORT_TYPES),
      passkey_setup_url: z.string().nullable(),
    }),
  ),
  count: z.number().int(),
});

import type { NewRegistryOverrideRow, RegistryOverrideRow } from "../../db/schema";
import type { CreateOverrideBody, UpdateOverrideBody } from "./schema";

/** API field name to column property: the API speaks the spec's snake_case names. */
export const FIELD_COLUMNS = {
  name: "name",
  logo_url: "logoUrl",
  category: "category",
  login_url: "loginUrl",
  reset_url: "resetUrl",
  passkey_setup_url: "passkeySetupUrl",
  passkey_support_type: "passkeySupportType",
  login_type: "loginType",
  browser_type: "browserType",
  sender_patterns: "senderPatterns",
  gmail_search_queries: "gmailSearchQueries",
  otp_patterns: "otpPatterns",
  link_patterns: "linkPatterns",
  success_indicators: "successIndicators",
  forgot_password_selectors: "forgotPasswordSelectors",
  email_input_selectors: "emailInputSelectors",
  submit_selectors: "submitSelectors",
  submit_button_text: "submitButtonText",
  skip_submit_patterns: "skipSubmitPatterns",
  password_requirements: "passwordRequirements",
  recovery_method: "recoveryMethod",
  notes: "notes",
  is_verified: "isVerified",
} as const satisfies Record<string, keyof RegistryOverrideRow>;

export type ApiField = keyof typeof FIELD_COLUMNS;

/** The given fields only (PATCH semantics); an explicit null is kept so it clears the column. */
export function bodyToColumns(
  body: Partial<CreateOverrideBody> | UpdateOverrideBody,
): Partial<NewRegistryOverrideRow> {
  const out: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(FIELD_COLUMNS)) {
    const v = (body as Record<string, unknown>)[field];
    if (v !== undefined) out[column] = v;
  }
  return out as Partial<NewRegistryOverrideRow>;
}

/** Every field, absent ones as null: a create (or reactivation) replaces the whole record. */
export function createToColumns(
  body: CreateOverrideBody,
): Omit<NewRegistryOverrideRow, "domain" | "createdAt" | "updatedAt"> {
  const out: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(FIELD_COLUMNS))
    out[column] = (body as Record<string, unknown>)[field] ?? null;
  return out as Omit<NewRegistryOverrideRow, "domain" | "createdAt" | "updatedAt">;
}

export type OverrideView = Record<ApiField, unknown> & {
  domain: string;
  is_active: boolean;
  created_by: string | null;
  updated_by: string | null;
  created_at: string;
  updated_at: string;
};

export function toView(row: RegistryOverrideRow): OverrideView {
  const out: Record<string, unknown> = { domain: row.domain };
  for (const [field, column] of Object.entries(FIELD_COLUMNS)) out[field] = row[column] ?? null;
  return {
    ...(out as Record<ApiField, unknown>),
    domain: row.domain,
    is_active: row.isActive,
    created_by: row.createdBy,
    updated_by: row.updatedBy,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { PasswordRequirements } from "../../kernel/password-rules";

type Strings = string[];

/** The stored JSON of a service's password rules; the registry domain validates it on the way in. */
export type StoredPasswordRequirements = PasswordRequirements;

/** Admin overrides of the built-in service registry (spec "Service registry override"). */
export const registryOverrides = sqliteTable(
  "registry_overrides",
  {
    domain: text("domain").primaryKey(),
    name: text("name").notNull(),
    logoUrl: text("logo_url"),
    category: text("category"),
    loginUrl: text("login_url"),
    resetUrl: text("reset_url"),
    passkeySetupUrl: text("passkey_setup_url"),
    passkeySupportType: text("passkey_support_type"),
    loginType: text("login_type"),
    browserType: text("browser_type"),
    senderPatterns: text("sender_patterns", { mode: "json" }).$type<Strings>(),
    gmailSearchQueries: text("gmail_search_queries", { mode: "json" }).$type<Strings>(),
    otpPatterns: text("otp_patterns", { mode: "json" }).$type<Strings>(),
    linkPatterns: text("link_patterns", { mode: "json" }).$type<Strings>(),
    successIndicators: text("success_indicators", { mode: "json" }).$type<Strings>(),
    forgotPasswordSelectors: text("forgot_password_selectors", { mode: "json" }).$type<Strings>(),
    emailInputSelectors: text("email_input_selectors", { mode: "json" }).$type<Strings>(),
    submitSelectors: text("submit_selectors", { mode: "json" }).$type<Strings>(),
    submitButtonText: text("submit_button_text", { mode: "json" }).$type<Strings>(),
    skipSubmitPatterns: text("skip_submit_patterns", { mode: "json" }).$type<Strings>(),
    passwordRequirements: text("password_requirements", {
      mode: "json",
    }).$type<StoredPasswordRequirements>(),
    recoveryMethod: text("recovery_method", { mode: "json" }).$type<{
      primary: string;
      secondary?: string;
    }>(),
    notes: text("notes"),
    isVerified: integer("is_verified", { mode: "boolean" }),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    createdBy: text("created_by"),
    updatedBy: text("updated_by"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    index("registry_overrides_active").on(t.isActive),
    index("registry_overrides_category").on(t.category),
  ],
);

export type RegistryOverrideRow = typeof registryOverrides.$inferSelect;
export type NewRegistryOverrideRow = typeof registryOverrides.$inferInsert;

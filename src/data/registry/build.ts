import type { BuiltinService, PasswordRequirements } from "../../domains/registry/schema";

/**
 * Defaults shared by the built-in registry: most forgot-password forms are an email field and a
 * submit button, and most reset mails carry one link back to the service's own domain.
 */

export const GENERIC_EMAIL_SELECTORS = [
  'input[type="email"]',
  'input[name="email"]',
  'input[autocomplete="username"]',
  'input[name="username"]',
  'input[id*="email" i]',
];
export const GENERIC_SUBMIT_SELECTORS = ['button[type="submit"]', 'input[type="submit"]'];
export const GENERIC_SUBMIT_TEXT = ["Send", "Reset password", "Continue", "Next", "Submit"];
export const GENERIC_FORGOT_SELECTORS = ['a[href*="forgot" i]', 'a[href*="reset" i]', 'a[href*="recover" i]'];
export const GENERIC_SUCCESS = ["check your email", "email has been sent", "we sent", "password has been changed", "password has been reset"];
export const GENERIC_OTP = ["\\b(\\d{6})\\b"];
export const DEFAULT_REQUIREMENTS: PasswordRequirements = {
  minLength: 8,
  maxLength: 64,
  requireUppercase: true,
  requireLowercase: true,
  requireNumbers: true,
  requireSymbols: true,
};

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export type Spec = {
  login?: string;
  reset: string;
  type?: BuiltinService["login_type"];
  senders?: string[];
  req?: PasswordRequirements;
  otp?: boolean;
  email?: string[];
  submit?: string[];
  browser?: BuiltinService["browser_type"];
  linkHosts?: string[];
  logo?: string;
};

export function svc(domain: string, name: string, category: BuiltinService["category"], s: Spec): BuiltinService {
  const senderDomains = s.senders ?? [domain];
  const linkHosts = s.linkHosts ?? [domain];
  return {
    domain,
    name,
    category,
    logo_url: s.logo ?? `https://${domain}/favicon.ico`,
    login_url: s.login ?? `https://${domain}/login`,
    reset_url: s.reset,
    login_type: s.type ?? "password_reset",
    browser_type: s.browser ?? "chromium",
    sender_patterns: senderDomains.map((d) => (d.includes("@") ? d : `@${d}`)),
    gmail_search_queries: [`from:(${senderDomains.map((d) => d.replace(/^.*@/, "")).join(" OR ")}) subject:(password OR reset OR recover) newer_than:1d`],
    otp_patterns: s.otp ? GENERIC_OTP : [],
    link_patterns: linkHosts.map(
      (h) => `https?://(?:[a-z0-9-]+\\.)*${escapeRe(h)}/[^\\s"'<>]*(?:reset|password|recover|token|verify)[^\\s"'<>]*`,
    ),
    success_indicators: GENERIC_SUCCESS,
    forgot_password_selectors: GENERIC_FORGOT_SELECTORS,
    email_input_selectors: s.email ?? GENERIC_EMAIL_SELECTORS,
    submit_selectors: s.submit ?? GENERIC_SUBMIT_SELECTORS,
    submit_button_text: GENERIC_SUBMIT_TEXT,
    skip_submit_patterns: ["Sign in with Google", "Sign in with Apple", "Continue with Facebook", "Create account"],
    password_requirements: s.req ?? DEFAULT_REQUIREMENTS,
    is_verified: true,
  };
}

export const req = (over: PasswordRequirements): PasswordRequirements => ({ ...DEFAULT_REQUIREMENTS, ...over });

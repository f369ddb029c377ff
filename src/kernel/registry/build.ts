import {
  DEFAULT_REQUIREMENTS,
  type BROWSER_TYPES,
  type CATEGORIES,
  type LOGIN_TYPES,
  type PasswordRequirements,
} from "../password-rules";

export { DEFAULT_REQUIREMENTS };

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
export const GENERIC_FORGOT_SELECTORS = [
  'a[href*="forgot" i]',
  'a[href*="reset" i]',
  'a[href*="recover" i]',
];
export const GENERIC_SUCCESS = [
  "check your email",
  "email has been sent",
  "we sent",
  "password has been changed",
  "password has been reset",
];
export const GENERIC_OTP = ["\\b(\\d{6})\\b"];
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export type Spec = {
  login?: string;
  reset: string;
  type?: (typeof LOGIN_TYPES)[number];
  senders?: string[];
  req?: PasswordRequirements;
  otp?: boolean;
  email?: string[];
  submit?: string[];
  browser?: (typeof BROWSER_TYPES)[number];
  linkHosts?: string[];
  logo?: string;
};

/**
 * One built-in entry. Its type is inferred, so this data imports only the pure layer (the
 * extension bundles it); the registry domain's BuiltinService schema validates every entry
 * (test/registry), and assigning them to BuiltinService type-checks the shape.
 */
export function svc(domain: string, name: string, category: (typeof CATEGORIES)[number], s: Spec) {
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
    gmail_search_queries: [
      `from:(${senderDomains.map((d) => d.replace(/^.*@/, "")).join(" OR ")}) subject:(password OR reset OR recover) newer_than:1d`,
    ],
    otp_patterns: s.otp ? GENERIC_OTP : [],
    link_patterns: linkHosts.map(
      (h) =>
        `https?://(?:[a-z0-9-]+\\.)*${escapeRe(h)}/[^\\s"'<>]*(?:reset|password|recover|token|verify)[^\\s"'<>]*`,
    ),
    success_indicators: GENERIC_SUCCESS,
    forgot_password_selectors: GENERIC_FORGOT_SELECTORS,
    email_input_selectors: s.email ?? GENERIC_EMAIL_SELECTORS,
    submit_selectors: s.submit ?? GENERIC_SUBMIT_SELECTORS,
    submit_button_text: GENERIC_SUBMIT_TEXT,
    skip_submit_patterns: [
      "Sign in with Google",
      "Sign in with Apple",
      "Continue with Facebook",
      "Create account",
    ],
    password_requirements: s.req ?? DEFAULT_REQUIREMENTS,
    is_verified: true,
  };
}

export const req = (over: PasswordRequirements): PasswordRequirements => ({
  ...DEFAULT_REQUIREMENTS,
  ...over,
});

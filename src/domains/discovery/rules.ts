import { findKnownService, GENERIC_COLOR } from "../../data/known-services";

/** Scan rule 1: seven subject searches, one per phrase group. */
export const SUBJECT_GROUPS: string[][] = [
  ["welcome", "thanks for signing up", "thanks for joining"],
  ["verify your email", "confirm your email", "email verification"],
  ["your account", "account created", "account confirmation"],
  ["get started", "getting started"],
  ["password reset", "reset your password", "change your password"],
  ["new sign-in", "security alert", "login notification"],
  ["subscription", "your plan", "your order", "order confirmation"],
];

/** Scan rule 3: leading labels removed from the sender's domain. */
export const STRIPPED_LABELS = new Set([
  "mail",
  "email",
  "mailer",
  "noreply",
  "notify",
  "notifications",
  "accounts",
  "account",
  "info",
  "news",
  "newsletter",
  "support",
  "help",
  "no-reply",
  "updates",
  "marketing",
  "transactional",
  "bounce",
  "e",
  "em",
  "m",
  "mg",
  "post",
  "comms",
]);

/**
 * Scan rule 4: 31 excluded domains. Consumer mailbox providers (mail from a person, not a service)
 * and bulk-mail delivery services (they send on behalf of others; the real sender is unknown).
 */
export const EXCLUDED_DOMAINS = new Set([
  "gmail.com",
  "googlemail.com",
  "outlook.com",
  "hotmail.com",
  "live.com",
  "msn.com",
  "yahoo.com",
  "ymail.com",
  "aol.com",
  "icloud.com",
  "me.com",
  "mac.com",
  "protonmail.com",
  "proton.me",
  "gmx.com",
  "gmx.net",
  "mail.com",
  "yandex.com",
  "zoho.com",
  "fastmail.com",
  "sendgrid.net",
  "mailchimp.com",
  "mcsv.net",
  "mailgun.org",
  "amazonses.com",
  "sparkpostmail.com",
  "mandrillapp.com",
  "constantcontact.com",
  "sendinblue.com",
  "postmarkapp.com",
  "exacttarget.com",
]);

/** Excluded also covers subdomains the label stripping leaves (bounces.us-east-1.amazonses.com). */
export function isExcluded(domain: string): boolean {
  const labels = domain.split(".");
  for (let i = 0; i <= labels.length - 2; i++)
    if (EXCLUDED_DOMAINS.has(labels.slice(i).join("."))) return true;
  return false;
}

/** The address inside a From value: the last <addr-spec>, else the first bare address. */
export function senderAddress(from: string): string | null {
  const angle = [...from.matchAll(/<([^<>\s]+@[^<>\s]+)>/g)].pop();
  if (angle) return angle[1];
  const bare = /([^\s<>"(),;:]+@[^\s<>"(),;:]+)/.exec(from);
  return bare ? bare[1] : null;
}

/** Rule 3 applied to a From value; null for no usable domain or an excluded one (rule 4). */
export function senderDomain(from: string): string | null {
  const address = senderAddress(from);
  if (!address) return null;
  let domain = address
    .slice(address.lastIndexOf("@") + 1)
    .toLowerCase()
    .replace(/\.$/, "");
  if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(domain)) return null;
  let labels = domain.split(".");
  while (labels.length > 2 && STRIPPED_LABELS.has(labels[0])) labels = labels.slice(1);
  domain = labels.join(".");
  if (isExcluded(domain)) return null;
  return domain;
}

export type ServiceInfo = {
  serviceName: string;
  serviceIcon: string;
  serviceColor: string;
  category: string | null;
  loginUrl: string | null;
};

/** Rule 5: the known service's details, or the capitalised first label and a generic grey. */
export function serviceInfo(domain: string): ServiceInfo {
  const known = findKnownService(domain);
  if (known) {
    return {
      serviceName: known.name,
      serviceIcon: `https://${known.domain}/favicon.ico`,
      serviceColor: known.color,
      category: known.category,
      loginUrl: known.loginUrl,
    };
  }
  const label = domain.split(".")[0];
  return {
    serviceName: label.charAt(0).toUpperCase() + label.slice(1),
    serviceIcon: `https://${domain}/favicon.ico`,
    serviceColor: GENERIC_COLOR,
    category: null,
    loginUrl: null,
  };
}

/**
 * The rows an entry shows beyond a login's own: its kind's details (a card's number and code, an
 * identity's names and address, an SSH key's public line, fingerprint and private key file), its
 * other addresses with their match rule, and its custom fields. Secret ones (a card's number and
 * code, hidden fields, an identity's numbers, an SSH private key) are masked like the password
 * until shown.
 */
import type { EntrySecrets } from "../../../../core/crypto";
import { kindOf, type CardDetails, type IdentityDetails } from "../../../../core/entry";

export type ExtraRow = { key: string; label: string; value: string; secret: boolean };

const CARD: [keyof CardDetails, string, boolean][] = [
  ["cardholder", "Cardholder", false],
  ["brand", "Brand", false],
  ["number", "Card number", true],
  ["code", "Security code", true],
];
const IDENTITY: [keyof IdentityDetails, string, boolean][] = [
  ["title", "Title", false],
  ["first_name", "First name", false],
  ["middle_name", "Middle name", false],
  ["last_name", "Last name", false],
  ["email", "Email", false],
  ["phone", "Phone", false],
  ["company", "Company", false],
  ["address1", "Address", false],
  ["address2", "Address line 2", false],
  ["city", "City", false],
  ["state", "State or province", false],
  ["postal_code", "Postal code", false],
  ["country", "Country", false],
  ["username", "Username", false],
  ["ssn", "National ID number", true],
  ["passport", "Passport number", true],
  ["license", "Licence number", true],
];
const RULE_TEXT: Record<string, string> = {
  domain: "",
  host: " (this host only)",
  starts_with: " (addresses starting with it)",
  exact: " (this exact address)",
  regex: " (pattern)",
  never: " (never filled)",
};

export const KIND_LABEL = {
  login: "Login",
  note: "Secure note",
  card: "Card",
  identity: "Identity",
  ssh_key: "SSH key",
} as const;

export function extraRows(s: EntrySecrets): ExtraRow[] {
  const rows: ExtraRow[] = [];
  for (const [k, label, secret] of CARD)
    if (s.card?.[k]) rows.push({ key: `card.${k}`, label, value: s.card[k], secret });
  if (s.card?.exp_month || s.card?.exp_year)
    rows.push({
      key: "card.expiry",
      label: "Expires",
      value: `${s.card.exp_month ?? "??"}/${s.card.exp_year ?? "????"}`,
      secret: false,
    });
  if (s.ssh)
    rows.push(
      { key: "ssh.public_key", label: "Public key", value: s.ssh.public_key, secret: false },
      { key: "ssh.fingerprint", label: "Fingerprint", value: s.ssh.fingerprint, secret: false },
      { key: "ssh.private_key", label: "Private key", value: s.ssh.private_key, secret: true },
    );
  for (const [k, label, secret] of IDENTITY)
    if (s.identity?.[k]) rows.push({ key: `identity.${k}`, label, value: s.identity[k], secret });
  (s.urls ?? []).forEach((u, i) =>
    rows.push({
      key: `urls.${i}`,
      label: `Also on${RULE_TEXT[u.match] ?? ""}`,
      value: u.url,
      secret: false,
    }),
  );
  (s.fields ?? []).forEach((f, i) =>
    rows.push({
      key: `fields.${i}`,
      label: f.name || "Field",
      value: f.type === "boolean" ? (f.value === "true" ? "Yes" : "No") : f.value,
      secret: f.type === "hidden",
    }),
  );
  return rows;
}

/** Whether the login rows (username, password) are shown even when empty: for logins only. */
export const showsLoginRows = (s: EntrySecrets) => kindOf(s) === "login";

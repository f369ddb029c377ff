/**
 * Secret references, `vault://<vault>/<entry>/<field>` (docs/cli.md, "References"): the vault is
 * `personal` (the person's own; with a machine token, its shared vault by name or id), the entry
 * its name or id, the field one of FIELDS or a custom field's name. Segments are percent-encoded
 * where they hold a `/` or a space.
 */
import { CliError, EXIT } from "./errors";

export const SCHEME = "vault://";
export const VAULTS = ["personal"] as const;
/** Fields every entry has; any other name is looked up among the entry's custom fields. */
export const FIELDS = [
  "password",
  "username",
  "notes",
  "totp",
  "url",
  "website",
  "name",
  "public_key",
  "fingerprint",
  "private_key",
] as const;

export type Reference = { vault: string; entry: string; field: string };

export const isReference = (value: string) => value.startsWith(SCHEME);

export function parseReference(text: string): Reference {
  if (!isReference(text))
    throw new CliError(`Not a reference (${SCHEME}<vault>/<entry>/<field>): ${text}`, EXIT.USAGE);
  const parts = text.slice(SCHEME.length).split("/");
  if (parts.length !== 3 || parts.some((p) => p === ""))
    throw new CliError(`A reference names a vault, an entry and a field: ${text}`, EXIT.USAGE);
  let decoded: string[];
  try {
    decoded = parts.map((p) => decodeURIComponent(p));
  } catch {
    throw new CliError(`The reference is not percent-encoded correctly: ${text}`, EXIT.USAGE);
  }
  const [vault, entry, field] = decoded as [string, string, string];
  return { vault, entry, field };
}

/** `{{ vault://... }}` in a template: the reference between the braces, spaces around it allowed. */
export const TEMPLATE_SLOT = /\{\{\s*(vault:\/\/[^\s}]+)\s*\}\}/g;

export function templateReferences(template: string): string[] {
  return [...new Set([...template.matchAll(TEMPLATE_SLOT)].map((m) => m[1] as string))];
}

export function fillTemplate(template: string, values: Map<string, string>): string {
  return template.replace(TEMPLATE_SLOT, (_, ref: string) => values.get(ref) ?? "");
}

/**
 * 1Password's 1PUX export (1Password 8's default): a zip whose export.data is JSON, accounts >
 * vaults > items. An item's login fields give username and password (by designation), its
 * sections the other fields (concealed ones hidden), its overview the addresses and tags.
 * Archived items are kept, tagged "archived"; each vault becomes the folder. Categories the vault
 * has no kind for (bank account, server, passport, Wi-Fi router …) arrive as the nearest kind with
 * their fields kept (kinds.ts).
 */
import type { CustomField, IdentityDetails } from "../entry";
import { asSource, filled, isSecretName, promote, sourceKind, splitName } from "./kinds";
import { clean, credential, finish, ImportFormatError, type ParseOutput } from "./model";

type Value = Record<string, unknown>;
type SectionField = { title?: string; id?: string; value?: Value };
type Item = {
  state?: string;
  favIndex?: number;
  categoryUuid?: string;
  details?: {
    loginFields?: { value?: string; name?: string; designation?: string; fieldType?: string }[];
    notesPlain?: string;
    password?: string;
    sections?: { title?: string; fields?: SectionField[] }[];
    passwordHistory?: { value?: string; time?: number }[];
  };
  overview?: {
    title?: string;
    url?: string;
    urls?: { url?: string; label?: string }[];
    tags?: string[];
  };
};
export type OnePuxDoc = {
  accounts?: { vaults?: { attrs?: { name?: string }; items?: (Item | { item?: Item })[] }[] }[];
};

/** 1Password's categories by number, as the source kinds they are (kinds.ts maps them). */
const CATEGORY: Record<string, string> = {
  "001": "login",
  "002": "credit card",
  "003": "secure note",
  "004": "identity",
  "005": "password",
  "100": "software license",
  "101": "bank account",
  "102": "database",
  "103": "driver's license",
  "104": "outdoor license",
  "105": "membership",
  "106": "passport",
  "107": "reward program",
  "108": "social security number",
  "109": "wireless router",
  "110": "server",
  "111": "email account",
  "112": "api credential",
  "113": "medical record",
  "114": "ssh key",
  "115": "crypto wallet",
};
const str = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");

/** A date field (epoch seconds) as the day it names. */
const day = (v: unknown) =>
  typeof v === "number" ? new Date(v * 1000).toISOString().slice(0, 10) : str(v);

/** An address field's parts (1PUX: street, city, state, zip, country). */
type Address = { street?: string; city?: string; state?: string; zip?: string; country?: string };
const addressText = (a: Address) =>
  [a.street, a.city, [a.state, a.zip].filter(Boolean).join(" "), a.country]
    .map(str)
    .filter(Boolean)
    .join(", ");

/** A section field's value as text, and whether it is secret. */
function fieldValue(v: Value = {}): { value: string; hidden: boolean; kind: string } {
  const [kind, raw] = Object.entries(v ?? {})[0] ?? ["string", ""];
  if (kind === "date") return { value: day(raw), hidden: false, kind };
  if (kind === "address" && raw && typeof raw === "object")
    return { value: addressText(raw as Address), hidden: false, kind };
  if (raw && typeof raw === "object") {
    const o = raw as Record<string, unknown>;
    return {
      value: str(o.email_address ?? o.url ?? Object.values(o).find((x) => typeof x === "string")),
      hidden: false,
      kind,
    };
  }
  if (typeof raw === "boolean") return { value: String(raw), hidden: false, kind };
  return { value: str(raw), hidden: kind === "concealed", kind };
}

/** Identity fields by their 1PUX ids. */
const IDENTITY_IDS: Record<string, string> = {
  firstname: "first_name",
  initial: "middle_name",
  lastname: "last_name",
  email: "email",
  company: "company",
  defphone: "phone",
};

/** Where a document's number goes in an identity, by category. */
const DOCUMENT_NUMBER: Record<string, string> = {
  "103": "license",
  "106": "passport",
  "108": "ssn",
};

export function fromOnePuxDoc(doc: OnePuxDoc): ParseOutput {
  if (!Array.isArray(doc.accounts))
    throw new ImportFormatError("Not a 1Password 1PUX export: export.data has no accounts");
  const out: ParseOutput = { credentials: [], skipped: [] };
  for (const account of doc.accounts) {
    for (const vault of account.vaults ?? []) {
      for (const wrapped of vault.items ?? []) {
        const item: Item = "item" in wrapped && wrapped.item ? wrapped.item : (wrapped as Item);
        const name = str(item.overview?.title) || "Unnamed item";
        if (item.state === "trashed") {
          out.skipped.push({ name, reason: "in the source's trash" });
          continue;
        }
        const categoryName = CATEGORY[item.categoryUuid ?? ""];
        if (!categoryName) {
          out.skipped.push({
            name,
            reason:
              item.categoryUuid === "006"
                ? "a 1Password document: files are not imported (download it from 1Password and attach it to an entry)"
                : `a 1Password item of category ${str(item.categoryUuid)}, which this vault does not hold`,
          });
          continue;
        }
        const d = item.details ?? {};
        const login = d.loginFields ?? [];
        const username = str(login.find((f) => f.designation === "username")?.value);
        const password =
          str(login.find((f) => f.designation === "password")?.value) || str(d.password);
        // Other form fields the login remembers: a concealed one stays hidden, a checkbox a boolean.
        const fields: CustomField[] = login
          // A checkbox left unticked is still a field (its value is "").
          .filter((f) => !f.designation && (f.value || f.fieldType === "C"))
          .map((f) =>
            f.fieldType === "C"
              ? {
                  name: str(f.name),
                  value: String(["on", "true", "✓", "1"].includes(str(f.value))),
                  type: "boolean",
                }
              : {
                  name: str(f.name),
                  value: str(f.value),
                  type: f.fieldType === "P" ? "hidden" : "text",
                },
          );
        const source = sourceKind(categoryName);
        const category = source.kind;
        const documentSlot = DOCUMENT_NUMBER[item.categoryUuid ?? ""];
        const card: Record<string, string> = {};
        const identity: Record<string, string> = {};
        let totp = "";
        for (const section of d.sections ?? []) {
          for (const f of section.fields ?? []) {
            const { value, hidden, kind } = fieldValue(f.value);
            if (!value) continue;
            const id = str(f.id);
            const address = f.value?.address as Address | undefined;
            if (kind === "totp" && !totp) totp = value;
            else if (category === "identity" && kind === "address" && address && !identity.address1)
              Object.assign(identity, {
                address1: str(address.street),
                city: str(address.city),
                state: str(address.state),
                postal_code: str(address.zip),
                country: str(address.country),
              });
            else if (documentSlot && id === "number" && !identity[documentSlot])
              identity[documentSlot] = value;
            else if (documentSlot && (id === "fullname" || id === "name") && !identity.first_name)
              Object.assign(identity, splitName(value));
            else if (
              category === "card" &&
              ["cardholder", "ccnum", "cvv", "expiry", "type"].includes(id)
            ) {
              if (id === "expiry") {
                card.exp_year = value.slice(0, 4);
                card.exp_month = value.slice(4, 6);
              } else
                card[
                  { cardholder: "cardholder", ccnum: "number", cvv: "code", type: "brand" }[id]!
                ] = value;
            } else if (category === "identity" && IDENTITY_IDS[id] && !identity[IDENTITY_IDS[id]]) {
              identity[IDENTITY_IDS[id]] = value;
            } else
              fields.push({
                name: str(f.title) || id,
                value,
                type: hidden || kind === "totp" || isSecretName(str(f.title)) ? "hidden" : "text",
              });
          }
        }
        const archived = item.state === "archived";
        const tags = [...(item.overview?.tags ?? []), ...(archived ? ["archived"] : [])];
        const urls = [
          str(item.overview?.url),
          ...(item.overview?.urls ?? []).map((u) => clean(u.url)),
        ];
        // A server's, database's or router's own username and password fields fill the login's.
        const slots =
          category === "login"
            ? promote(fields, { username, password })
            : { fields, username, password };
        const kept = asSource(source, slots.fields.length);
        out.credentials.push(
          credential({
            name,
            kind: category,
            sourceKind: kept.sourceKind,
            urls,
            username: slots.username,
            password: slots.password,
            notes: str(d.notesPlain),
            totp,
            fields: slots.fields,
            card,
            identity: filled<IdentityDetails>(identity),
            tags,
            folder: vault.attrs?.name ?? null,
            favorite: (item.favIndex ?? 0) > 0,
            history: (d.passwordHistory ?? []).map((h) => ({
              password: str(h.value),
              changed_at: new Date((h.time ?? 0) * 1000).toISOString(),
            })),
            changes: [
              ...kept.changes,
              ...(archived ? ['archived in the source: tagged "archived"'] : []),
            ],
          }),
        );
      }
    }
  }
  return finish(out);
}

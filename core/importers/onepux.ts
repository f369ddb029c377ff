/**
 * 1Password's 1PUX export (1Password 8's default): a zip whose export.data is JSON, accounts >
 * vaults > items. An item's login fields give username and password (by designation), its
 * sections the other fields (concealed ones hidden), its overview the addresses and tags.
 * Archived items are kept, tagged "archived"; each vault becomes the folder.
 */
import type { CustomField, EntryKind } from "../entry";
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

const CATEGORY: Record<string, EntryKind | "password"> = {
  "001": "login",
  "002": "card",
  "003": "note",
  "004": "identity",
  "005": "password",
};
const str = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");

/** A section field's value as text, and whether it is secret. */
function fieldValue(v: Value = {}): { value: string; hidden: boolean; kind: string } {
  const [kind, raw] = Object.entries(v)[0] ?? ["string", ""];
  if (raw && typeof raw === "object") {
    const o = raw as Record<string, unknown>;
    return {
      value: str(o.email_address ?? o.url ?? Object.values(o).find((x) => typeof x === "string")),
      hidden: false,
      kind,
    };
  }
  return { value: str(raw), hidden: kind === "concealed", kind };
}

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
        const category = CATEGORY[item.categoryUuid ?? ""];
        if (!category) {
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
          .filter((f) => !f.designation && f.value)
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
        const card: Record<string, string> = {};
        const identity: Record<string, string> = {};
        let totp = "";
        for (const section of d.sections ?? []) {
          for (const f of section.fields ?? []) {
            const { value, hidden, kind } = fieldValue(f.value);
            if (!value) continue;
            const id = str(f.id);
            if (kind === "totp" && !totp) totp = value;
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
            } else if (
              category === "identity" &&
              ["firstname", "lastname", "email", "company"].includes(id)
            ) {
              identity[
                {
                  firstname: "first_name",
                  lastname: "last_name",
                  email: "email",
                  company: "company",
                }[id]!
              ] = value;
            } else
              fields.push({
                name: str(f.title) || id,
                value,
                type: hidden || kind === "totp" ? "hidden" : "text",
              });
          }
        }
        const archived = item.state === "archived";
        const tags = [...(item.overview?.tags ?? []), ...(archived ? ["archived"] : [])];
        const urls = [
          str(item.overview?.url),
          ...(item.overview?.urls ?? []).map((u) => clean(u.url)),
        ];
        out.credentials.push(
          credential({
            name,
            kind: category === "password" ? "login" : category,
            urls,
            username,
            password,
            notes: str(d.notesPlain),
            totp,
            fields,
            card,
            identity,
            tags,
            folder: vault.attrs?.name ?? null,
            favorite: (item.favIndex ?? 0) > 0,
            history: (d.passwordHistory ?? []).map((h) => ({
              password: str(h.value),
              changed_at: new Date((h.time ?? 0) * 1000).toISOString(),
            })),
            changes: archived ? ['archived in the source: tagged "archived"'] : [],
          }),
        );
      }
    }
  }
  return finish(out);
}

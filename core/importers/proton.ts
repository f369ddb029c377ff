/**
 * Proton Pass JSON (data.json, alone or inside its zip): `{encrypted, vaults: {<id>: {name, items:
 * [{data: {metadata, extraFields, type, content}, state, pinned}]}}}`. Each vault becomes a folder;
 * trashed items (state 2) are skipped with the reason; aliases keep their address as a login.
 */
import type { CustomField } from "../entry";
import { clean, credential, finish, ImportFormatError, type ParseOutput } from "./model";

type Field = { fieldName?: string; type?: string; data?: { content?: string } };
type Item = {
  state?: number;
  pinned?: boolean;
  aliasEmail?: string | null;
  data?: {
    type?: string;
    metadata?: { name?: string; note?: string };
    extraFields?: Field[];
    content?: Record<string, unknown>;
  };
};
export type ProtonDoc = {
  encrypted?: boolean;
  version?: string;
  vaults?: Record<string, { name?: string; items?: Item[] }>;
};

export const isProtonDoc = (doc: unknown): doc is ProtonDoc =>
  !!doc &&
  typeof doc === "object" &&
  typeof (doc as ProtonDoc).vaults === "object" &&
  "encrypted" in (doc as object);

const TRASHED = 2;
const str = (v: unknown) => (typeof v === "string" ? v : "");

export function fromProtonDoc(doc: ProtonDoc): ParseOutput {
  if (doc.encrypted)
    throw new ImportFormatError(
      "This Proton Pass export is encrypted with PGP. In Proton Pass, export again without encryption (JSON or ZIP) and import that file.",
    );
  const out: ParseOutput = { credentials: [], skipped: [] };
  for (const vault of Object.values(doc.vaults ?? {})) {
    for (const item of vault.items ?? []) {
      const d = item.data ?? {};
      const name = str(d.metadata?.name) || "Unnamed item";
      if (item.state === TRASHED) {
        out.skipped.push({ name, reason: "in the source's trash" });
        continue;
      }
      const c = d.content ?? {};
      const changes: string[] = [];
      const fields: CustomField[] = [];
      let totp = str(c.totpUri);
      for (const f of d.extraFields ?? []) {
        const value = str(f.data?.content);
        // A second TOTP has no slot of its own: a hidden field keeps it.
        if (f.type === "totp" && !totp) totp = value;
        else
          fields.push({
            name: str(f.fieldName),
            value,
            type: f.type === "hidden" || f.type === "totp" ? "hidden" : "text",
          });
      }
      const base = {
        name,
        notes: str(d.metadata?.note),
        folder: vault.name ?? null,
        favorite: item.pinned === true,
        fields,
        totp,
        changes,
      };
      switch (d.type) {
        case "login": {
          // Newer exports split the login into email and username; older ones have `username`.
          const email = str(c.itemEmail);
          const username = str(c.itemUsername) || str(c.username);
          if (email && username) fields.unshift({ name: "Email", value: email, type: "text" });
          out.credentials.push(
            credential({
              ...base,
              urls: (Array.isArray(c.urls) ? c.urls : []).map(clean),
              username: username || email,
              password: str(c.password),
            }),
          );
          break;
        }
        case "alias":
          out.credentials.push(
            credential({
              ...base,
              username: str(item.aliasEmail),
              changes: [
                "a Proton alias: kept as a login with the alias address (forwarding stays in Proton)",
              ],
            }),
          );
          break;
        case "note":
          out.credentials.push(credential({ ...base, kind: "note" }));
          break;
        case "creditCard": {
          const [year, month] = str(c.expirationDate).split("-");
          if (str(c.pin)) fields.push({ name: "PIN", value: str(c.pin), type: "hidden" });
          const card = {
            cardholder: str(c.cardholderName),
            number: str(c.number),
            code: str(c.verificationNumber),
            exp_month: month ?? "",
            exp_year: year ?? "",
          };
          out.credentials.push(
            credential({
              ...base,
              kind: "card",
              card: Object.fromEntries(Object.entries(card).filter(([, v]) => v)),
            }),
          );
          break;
        }
        case "identity": {
          const id = {
            first_name: str(c.firstName) || str(c.fullName),
            middle_name: str(c.middleName),
            last_name: str(c.lastName),
            email: str(c.email),
            phone: str(c.phoneNumber),
            company: str(c.company),
            address1: str(c.streetAddress),
            city: str(c.city),
            state: str(c.stateOrProvince),
            postal_code: str(c.zipOrPostalCode),
            country: str(c.countryOrRegion),
          };
          out.credentials.push(
            credential({
              ...base,
              kind: "identity",
              identity: Object.fromEntries(Object.entries(id).filter(([, v]) => v)),
            }),
          );
          break;
        }
        default:
          out.skipped.push({
            name,
            reason: `a Proton Pass ${str(d.type) || "item"} this vault does not hold`,
          });
      }
    }
  }
  return finish(out);
}

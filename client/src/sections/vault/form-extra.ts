/**
 * The entry form's parts beyond one login: other addresses (each with its match rule), custom
 * fields (text, hidden, boolean; a hidden value is typed masked) and an identity's details. The
 * form shows them, so it sets them on save, even to nothing (vault.ts `carried`): removing the
 * last address or field clears it. Identity details are set only while the kind is identity,
 * otherwise carried as they were, like a card's.
 */
import { el } from "../../pages/common";
import {
  FIELD_TYPES,
  IDENTITY_KEYS,
  MATCH_RULES,
  type CustomField,
  type EntryUrl,
  type FieldType,
  type IdentityDetails,
  type MatchRule,
} from "../../../../core/entry";
import type { EntryInput } from "../../../../core/vault";

const RULE_LABELS: Record<MatchRule, string> = {
  domain: "Domain and subdomains",
  host: "This host only",
  starts_with: "Starts with",
  exact: "Exact URL",
  regex: "Regular expression (not used for filling)",
  never: "Never",
};
const TYPE_LABELS: Record<FieldType, string> = {
  text: "Text",
  hidden: "Hidden",
  boolean: "Yes/No",
};
const IDENTITY_LABELS: Record<(typeof IDENTITY_KEYS)[number], string> = {
  title: "Title",
  first_name: "First name",
  middle_name: "Middle name",
  last_name: "Last name",
  email: "Email",
  phone: "Phone",
  company: "Company",
  address1: "Address line 1",
  address2: "Address line 2",
  city: "City",
  state: "State or region",
  postal_code: "Postal code",
  country: "Country",
  username: "User ID",
  ssn: "National ID number",
  passport: "Passport number",
  license: "Licence number",
};
const MASKED_IDENTITY = new Set(["ssn", "passport", "license"]);

const options = <T extends string>(values: readonly T[], labels: Record<T, string>, chosen: T) =>
  values.map((v) => el("option", { value: v, textContent: labels[v], selected: v === chosen }));

export class EntryFormExtra {
  private readonly urls = el("div", { className: "extra-rows", id: "f-urls" });
  private readonly fields = el("div", { className: "extra-rows", id: "f-fields" });
  private readonly identity = new Map<string, HTMLInputElement>();
  private n = 0;

  constructor(before: Element) {
    const addUrl = el("button", { type: "button", id: "f-add-url", textContent: "Add address" });
    addUrl.addEventListener("click", () => this.addUrl({ url: "", match: "domain" }, true));
    const addField = el("button", { type: "button", id: "f-add-field", textContent: "Add field" });
    addField.addEventListener("click", () =>
      this.addField({ name: "", value: "", type: "text" }, true),
    );
    const ident = el(
      "fieldset",
      { className: "identity-only" },
      el("legend", { textContent: "Identity details" }),
    );
    for (const k of IDENTITY_KEYS) {
      const id = `f-identity-${k}`;
      const box = el("input", {
        id,
        autocomplete: "off",
        type: MASKED_IDENTITY.has(k) ? "password" : "text",
      });
      this.identity.set(k, box);
      ident.append(el("label", { htmlFor: id, textContent: IDENTITY_LABELS[k] }), box);
    }
    before.before(
      ident,
      el("fieldset", {}, el("legend", { textContent: "Other addresses" }), this.urls, addUrl),
      el("fieldset", {}, el("legend", { textContent: "Custom fields" }), this.fields, addField),
    );
  }

  private row(container: HTMLElement, label: string, ...controls: HTMLElement[]) {
    const remove = el("button", { type: "button", className: "link", textContent: "Remove" });
    remove.setAttribute("aria-label", `Remove ${label}`);
    const row = el("div", { className: "extra-row" }, ...controls, remove);
    remove.addEventListener("click", () => row.remove());
    container.append(row);
    return row;
  }

  private addUrl(u: EntryUrl, focus = false) {
    const i = ++this.n;
    const url = el("input", {
      type: "text",
      value: u.url,
      inputMode: "url",
      autocomplete: "off",
      dataset: { role: "url" },
    });
    url.setAttribute("aria-label", `Address ${this.urls.children.length + 1}`);
    const rule = el(
      "select",
      { dataset: { role: "match" } },
      ...options(MATCH_RULES, RULE_LABELS, u.match),
    );
    rule.setAttribute("aria-label", `Match rule of address ${this.urls.children.length + 1}`);
    this.row(this.urls, `address ${i}`, url, rule);
    if (focus) url.focus();
  }

  private addField(f: CustomField, focus = false) {
    const n = this.fields.children.length + 1;
    const name = el("input", {
      type: "text",
      value: f.name,
      autocomplete: "off",
      dataset: { role: "name" },
    });
    name.setAttribute("aria-label", `Field ${n} name`);
    const type = el(
      "select",
      { dataset: { role: "type" } },
      ...options(FIELD_TYPES, TYPE_LABELS, f.type),
    );
    type.setAttribute("aria-label", `Field ${n} type`);
    const value = el("input", { value: f.value, autocomplete: "off", dataset: { role: "value" } });
    value.setAttribute("aria-label", `Field ${n} value`);
    const shape = () => {
      const t = type.value as FieldType;
      value.type = t === "hidden" ? "password" : "text";
      value.placeholder = t === "boolean" ? "true or false" : "";
    };
    type.addEventListener("change", shape);
    shape();
    this.row(this.fields, `field ${n}`, name, type, value);
    if (focus) name.focus();
  }

  fill(v: Partial<EntryInput>) {
    this.urls.replaceChildren();
    this.fields.replaceChildren();
    for (const u of v.urls ?? []) this.addUrl(u);
    for (const f of v.fields ?? []) this.addField(f);
    for (const [k, box] of this.identity)
      box.value = v.identity?.[k as keyof IdentityDetails] ?? "";
  }

  private readUrls(): EntryUrl[] {
    return Array.from(this.urls.children).flatMap((r) => {
      const url = (r.querySelector("[data-role=url]") as HTMLInputElement).value.trim();
      return url
        ? [
            {
              url,
              match: (r.querySelector("[data-role=match]") as HTMLSelectElement).value as MatchRule,
            },
          ]
        : [];
    });
  }

  private readFields(): CustomField[] {
    return Array.from(this.fields.children).flatMap((r) => {
      const name = (r.querySelector("[data-role=name]") as HTMLInputElement).value.trim();
      const value = (r.querySelector("[data-role=value]") as HTMLInputElement).value;
      const type = (r.querySelector("[data-role=type]") as HTMLSelectElement).value as FieldType;
      if (!name && !value) return [];
      return [
        {
          name,
          type,
          value: type === "boolean" ? String(/^(true|yes|1|on)$/i.test(value.trim())) : value,
        },
      ];
    });
  }

  /** What the form sets: addresses and fields always; identity details while the kind is identity. */
  read(kind: string): Pick<EntryInput, "urls" | "fields" | "identity"> {
    const out: Pick<EntryInput, "urls" | "fields" | "identity"> = {
      urls: this.readUrls(),
      fields: this.readFields(),
    };
    if (kind === "identity")
      out.identity = Object.fromEntries(
        [...this.identity].map(([k, b]) => [k, b.value.trim()]).filter(([, x]) => x),
      );
    return out;
  }

  /** For the form's unsaved-changes check. */
  state(): string {
    return JSON.stringify([
      this.readUrls(),
      this.readFields(),
      [...this.identity.values()].map((b) => b.value),
    ]);
  }
}

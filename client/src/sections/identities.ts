/**
 * Identities (/identities): generate a disposable persona for a country, with or without an email
 * alias from an alias provider; see and copy its fields; save it as a vault entry; delete it.
 */
import { AUTOMATION_ENDPOINTS as EP } from "../automation/endpoints";
import { button, copyText, describeError, labelled, sectionFrame } from "../automation/ui";
import { el } from "../pages/common";
import type { AppContext } from "../shell/context";
import type { WireBody, WireResponse } from "../../../core/api";

type Identity = WireResponse<"/api/identities", "get">["identities"][number];
type NewIdentity = WireBody<"/api/identities", "post">;
/** A select's choices: the value the server takes, and the text shown. */
type Options<T extends string> = readonly (readonly [T, string])[];

const COUNTRIES: Options<NonNullable<NewIdentity["country"]>> = [
  ["US", "United States"],
  ["GB", "United Kingdom"],
  ["CA", "Canada"],
];
const GENDERS: Options<NonNullable<NewIdentity["gender"]>> = [
  ["any", "Any"],
  ["female", "Female"],
  ["male", "Male"],
];
const ALIAS_PROVIDERS: Options<NonNullable<NewIdentity["emailProvider"]>> = [
  ["alias_provider_a", "Alias provider A (SimpleLogin API)"],
  ["alias_provider_b", "Alias provider B (addy.io API)"],
];

const select = <T extends string>(name: string, options: Options<T>) =>
  el(
    "select",
    { name },
    ...options.map(([value, textContent]) => el("option", { value, textContent })),
  );
/** The option picked, as the value the list was built from (the first when none is). */
const chosen = <T extends string>(s: HTMLSelectElement, options: Options<T>): T =>
  (options.find(([v]) => v === s.value) ?? options[0]!)[0];

const FIELDS: [keyof Identity, string][] = [
  ["first_name", "First name"],
  ["last_name", "Last name"],
  ["username", "Username"],
  ["email_alias", "Email alias"],
  ["phone_number", "Phone"],
  ["date_of_birth", "Date of birth"],
  ["gender", "Gender"],
  ["address_line1", "Street"],
  ["address_city", "City"],
  ["address_state", "State"],
  ["address_zip", "Postal code"],
  ["address_country", "Country"],
];

/** The alias provider's key, kept in this page's memory only (never stored on the device). */
let aliasKey = "";

const ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789!#$%&*+-=?@";

/** A strong password for the account this identity signs up for (uniform: rejection sampling). */
function newPassword(length = 20): string {
  const out: string[] = [];
  const limit = 256 - (256 % ALPHABET.length);
  while (out.length < length) {
    for (const b of crypto.getRandomValues(new Uint8Array(length * 2)))
      if (b < limit && out.length < length) out.push(ALPHABET[b % ALPHABET.length]!);
  }
  return out.join("");
}

export function mount(root: HTMLElement, app: AppContext): void {
  const { api } = app;
  const country = select("country", COUNTRIES);
  const gender = select("gender", GENDERS);
  const label = el("input", { name: "label", maxLength: 200 });
  const service = el("input", { name: "service", maxLength: 200, placeholder: "example.com" });
  const withAlias = el("input", { type: "checkbox", name: "alias" });
  const provider = select("alias-provider", ALIAS_PROVIDERS);
  const key = el("input", {
    name: "alias-key",
    type: "password",
    autocomplete: "off",
    maxLength: 512,
    value: aliasKey,
  });
  const aliasBox = el(
    "div",
    { className: "alias-options", hidden: true },
    labelled("Alias provider", provider),
    labelled(
      "Alias provider API key",
      key,
      "Used for this alias only; the server keeps it sealed to disable the alias later.",
    ),
  );
  const error = el("p", { className: "error", role: "alert" });
  const submit = el("button", { type: "submit", textContent: "Generate identity" });
  const form = el(
    "form",
    { className: "card identity-form", noValidate: true },
    labelled("Country", country),
    labelled("Gender", gender),
    labelled("Label (optional)", label),
    labelled("For service (optional)", service),
    el("label", { className: "inline" }, withAlias, " Create an email alias"),
    aliasBox,
    el("div", { className: "row" }, submit),
    error,
  );
  const list = el("div", { className: "identities" });
  const empty = el("p", { className: "muted", textContent: "No identities yet." });
  sectionFrame(
    root,
    "Identities",
    "Disposable personas for sign-ups you would rather not tie to your real name and address.",
    form,
    el("h2", { textContent: "Your identities" }),
    empty,
    list,
  );

  withAlias.addEventListener("change", () => (aliasBox.hidden = !withAlias.checked));

  function card(i: Identity) {
    const name =
      i.display_name ?? ([i.first_name, i.last_name].filter(Boolean).join(" ") || "Identity");
    const status = el("p", {
      className: "muted",
      textContent: `${i.status}${i.label ? ` · ${i.label}` : ""}${i.used_for_service ? ` · for ${i.used_for_service}` : ""}`,
    });
    const fields = el(
      "dl",
      { className: "identity-fields" },
      ...FIELDS.filter(([f]) => i[f]).flatMap(([f, title]) => [
        el("dt", { textContent: title }),
        el(
          "dd",
          { dataset: { field: f } },
          el("span", { textContent: String(i[f]) }),
          " ",
          button("Copy", () => void copyText(String(i[f]), title, app.toast), {
            aria: `Copy ${title} of ${name}`,
          }),
        ),
      ]),
    );
    const box = el(
      "section",
      { className: "card identity", dataset: { id: i.id } },
      el("h3", { textContent: name }),
      status,
      fields,
    );
    box.append(
      el(
        "div",
        { className: "row" },
        button("Save as vault entry", () => void save(i, name), {
          aria: `Save ${name} as a vault entry`,
          secondary: false,
        }),
        button("Delete", () => void remove(i, name), { aria: `Delete ${name}` }),
      ),
    );
    return box;
  }

  async function load() {
    try {
      const { identities } = await api.requestAll(EP.identities);
      list.replaceChildren(...identities.map(card));
      empty.hidden = identities.length > 0;
    } catch (e) {
      error.textContent = describeError(e, "Listing identities");
    }
  }

  async function save(i: Identity, name: string) {
    const address = [
      i.address_line1,
      [i.address_city, i.address_state, i.address_zip].filter(Boolean).join(" "),
      i.address_country,
    ]
      .filter(Boolean)
      .join(", ");
    const notes = [
      `Identity: ${name}`,
      i.date_of_birth ? `Date of birth: ${i.date_of_birth}` : "",
      i.phone_number ? `Phone: ${i.phone_number}` : "",
      address ? `Address: ${address}` : "",
    ]
      .filter(Boolean)
      .join("\n");
    const site = i.used_for_service ?? "";
    await app.vault.create({
      name: i.label || `${name} (identity)`,
      website: site,
      url: "",
      tags: ["identity"],
      username: i.email_alias ?? i.username ?? "",
      password: newPassword(),
      notes,
      category: "identity",
      totp: "",
    });
    await app.changed();
    app.toast(`Saved ${name} to the vault`);
  }

  async function remove(i: Identity, name: string) {
    if (
      !confirm(
        `Delete the identity ${name}?${i.email_alias ? " Mail to its alias may still arrive until you disable the alias." : ""}`,
      )
    )
      return;
    try {
      await api.request(EP.deleteIdentity, { params: { id: i.id } });
      app.toast(`Deleted ${name}`);
      await load();
    } catch (e) {
      error.textContent = describeError(e, "Deleting");
    }
  }

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    error.textContent = "";
    aliasKey = key.value.trim();
    if (withAlias.checked && !aliasKey)
      return void (error.textContent =
        "Enter the alias provider's API key to create an email alias.");
    submit.disabled = true;
    const body: NewIdentity = {
      country: chosen(country, COUNTRIES),
      gender: chosen(gender, GENDERS),
      ...(label.value.trim() ? { label: label.value.trim() } : {}),
      ...(service.value.trim() ? { service: service.value.trim() } : {}),
      generateEmail: withAlias.checked,
      ...(withAlias.checked
        ? { emailProvider: chosen(provider, ALIAS_PROVIDERS), emailApiKey: aliasKey }
        : {}),
    };
    void api
      .request(EP.createIdentity, { body })
      .then(
        async ({ identity }) => {
          app.toast(`Identity ${identity.display_name ?? ""} created`);
          label.value = "";
          await load();
        },
        (e) => (error.textContent = describeError(e, "Generating the identity")),
      )
      .finally(() => (submit.disabled = false));
  });

  void load();
}

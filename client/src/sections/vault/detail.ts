/**
 * An open entry: its fields, each with its own copy button, secrets masked until shown (and masked
 * again when the person leaves the entry or the page); the live one-time code; the entry's tools
 * as tabs, each mounted the first time its tab is opened and unmounted when the entry is left.
 * Nothing here closes on a timer: a person may spend minutes in a tool.
 */
import type { EntrySecrets } from "../../../../core/crypto";
import type { LocalEntry } from "../../../../core/store";
import { entryTools } from "../../entry-tools";
import { $, el } from "../../pages/common";
import { formatTime } from "../../../../core/ui";
import type { AppContext, EntryContext, EntryToolDef, Unmount } from "../../shell/context";
import { avatarColour, avatarLetter } from "./list";
import { passkeyHintRows, passkeyRows } from "./passkeys";
import { passkeySiteFor } from "./passkey-sites";
import type { StoredPasskey } from "../../../../core/passkeys";
import { extraRows, KIND_LABEL, showsLoginRows } from "./detail-extra";

type FieldKey = "username" | "password" | "website" | "url" | "notes" | "category" | "totp";
type Field = { key: FieldKey; label: string; secret?: boolean; always?: boolean };
const FIELDS: Field[] = [
  { key: "username", label: "Username", always: true },
  { key: "password", label: "Password", secret: true, always: true },
  { key: "website", label: "Website" },
  { key: "url", label: "URL" },
  { key: "notes", label: "Notes" },
  { key: "category", label: "Category" },
  { key: "totp", label: "TOTP secret", secret: true },
];
const MASK = "••••••••••";
/** The tool shown inside the details tab rather than as a tab of its own: the live code. */
const INLINE_TOOL = "totp";

export type DetailHost = {
  app: AppContext;
  /**
   * The section's own lookup (its root, not the document): an entry's secrets may open after the
   * person left the section, and then land in the detached root instead of throwing.
   */
  $: (id: string) => HTMLElement;
  /** The entry's secrets (through the audited reveal endpoint when online). */
  secretsOf(e: LocalEntry): Promise<EntrySecrets>;
  edit(e: LocalEntry): void;
  remove(e: LocalEntry): void;
  /** The person left the entry (Close, Back or Escape). */
  closed(): void;
};

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

export class EntryDetail {
  entry: LocalEntry | null = null;
  /** Whether the open entry is one shared with the person (read-only here). */
  private shared = false;
  private secrets: Promise<EntrySecrets> | null = null;
  private unmounts: Unmount[] = [];
  private opened = 0;
  private readonly box = $("revealed");
  private readonly tabs = $("detail-tabs");
  private readonly tools = $("entry-tools");
  private readonly onHidden = () => document.visibilityState === "hidden" && this.mask();
  /** The values behind the masked fields: kept out of the DOM until shown. */
  private values = new WeakMap<HTMLElement, string>();

  constructor(private readonly host: DetailHost) {
    this.host.$("hide-revealed").addEventListener("click", () => this.leave());
    this.host.$("back-to-list").addEventListener("click", () => this.leave());
    this.host.$("edit-entry").addEventListener("click", () => this.entry && host.edit(this.entry));
    this.host
      .$("delete-entry")
      .addEventListener("click", () => this.entry && host.remove(this.entry));
    this.box.addEventListener("keydown", (ev) => this.onKey(ev));
    document.addEventListener("visibilitychange", this.onHidden);
  }

  /**
   * Opens an entry: the frame at once, the fields once its secrets are opened. `shared` (who shared
   * it, and how) opens an entry shared with the person read-only: its fields, no edit or tools.
   */
  open(e: LocalEntry, shared?: string): Promise<void> {
    this.close();
    const mine = ++this.opened;
    this.entry = e;
    this.shared = !!shared;
    this.host.$("detail-shared").textContent = shared ?? "";
    this.host.$("detail-shared").hidden = !shared;
    for (const id of ["edit-entry", "delete-entry", "favorite-entry", "detail-folder"])
      this.host.$(id).hidden = !!shared;
    const site = e.website || e.url || "";
    this.host.$("revealed-heading").textContent = e.name;
    this.host.$("detail-site").textContent = site;
    const av = this.host.$("detail-avatar");
    av.textContent = avatarLetter(e.name, site);
    av.className = `avatar large c${avatarColour(e.name)}`;
    this.host.$("edit-entry").setAttribute("aria-label", `Edit ${e.name}`);
    this.host.$("delete-entry").setAttribute("aria-label", `Delete ${e.name}`);
    this.host.$("detail-error").textContent = "";
    this.host.$("revealed-fields").replaceChildren();
    this.drawTabs();
    this.box.hidden = false;
    this.box.dataset.id = e.id;
    const secrets = this.host.secretsOf(e);
    this.secrets = secrets;
    secrets.catch(() => undefined);
    return secrets.then(
      (s) => {
        if (mine !== this.opened) return;
        this.drawFields(e, s);
        if (!shared) void this.drawPasskeyHint(e, s, mine);
        // A note, a card, an identity or a key has no website account: no codes, reset or session
        // for it (Bitwarden shows them for logins only), unless it already holds a TOTP secret.
        const login = showsLoginRows(s) || !!s.totp;
        if (!login) this.dropLoginTools();
        if (!shared && login)
          this.mountTool(
            entryTools.find((t) => t.id === INLINE_TOOL)!,
            this.host.$("panel-details"),
            s,
          );
        this.box.dataset.ready = "true";
      },
      (err: unknown) => {
        if (mine !== this.opened) return;
        this.host.$("detail-error").textContent = `This entry cannot be opened: ${errorText(err)}`;
        this.host.app.toast(`Cannot reveal: ${errorText(err)}`);
      },
    );
  }

  /** Leaves the entry: tools unmounted, secrets dropped from the page. */
  close() {
    this.opened++;
    for (const u of this.unmounts) u();
    this.unmounts = [];
    this.entry = null;
    this.secrets = null;
    delete this.box.dataset.id;
    delete this.box.dataset.ready;
    this.box.hidden = true;
    this.host.$("revealed-fields").replaceChildren();
    this.tabs.replaceChildren();
    for (const p of Array.from(this.tools.querySelectorAll(".tab-panel:not(#panel-details)")))
      p.remove();
    this.host.$("panel-details").querySelector(`[data-tool="${INLINE_TOOL}"]`)?.remove();
  }

  leave() {
    this.close();
    this.host.closed();
  }

  destroy() {
    this.close();
    document.removeEventListener("visibilitychange", this.onHidden);
  }

  /** Masks every shown secret again. */
  mask() {
    for (const dd of Array.from(this.box.querySelectorAll<HTMLElement>("dd[data-secret]")))
      this.setShown(dd, false);
  }

  /** Copies a field of the open entry; `code` copies the live one-time code. */
  async copy(key: FieldKey | "code") {
    if (!this.entry || !this.secrets) return;
    if (key === "code") {
      const button = Array.from(
        this.box.querySelectorAll<HTMLButtonElement>(`[data-tool="${INLINE_TOOL}"] button`),
      ).find((b) => b.textContent === "Copy code");
      if (button) button.click();
      else this.host.app.toast("This entry has no one-time code");
      return;
    }
    const label = FIELDS.find((f) => f.key === key)!.label;
    try {
      const value =
        key === "website" || key === "url" ? (this.entry[key] ?? "") : (await this.secrets)[key];
      await navigator.clipboard.writeText(value);
      this.host.app.toast(`${label} copied`);
    } catch (err) {
      this.host.app.toast(`Cannot copy: ${errorText(err)}`);
    }
  }

  private async copyText(label: string, value: string) {
    try {
      await navigator.clipboard.writeText(value);
      this.host.app.toast(`${label} copied`);
    } catch (err) {
      this.host.app.toast(`Cannot copy: ${errorText(err)}`);
    }
  }

  private setShown(dd: HTMLElement, shown: boolean) {
    const value = this.values.get(dd) ?? "";
    dd.textContent = shown ? value || "—" : value ? MASK : "—";
    dd.dataset.masked = String(!shown);
    const toggle = dd.nextElementSibling?.querySelector<HTMLButtonElement>("button.show");
    if (toggle) {
      toggle.textContent = shown ? "Hide" : "Show";
      toggle.setAttribute(
        "aria-label",
        `${shown ? "Hide" : "Show"} ${dd.dataset.label?.toLowerCase()}`,
      );
      toggle.setAttribute("aria-pressed", String(shown));
    }
  }

  private drawFields(e: LocalEntry, s: EntrySecrets) {
    const values: Record<FieldKey, string> = { ...s, website: e.website ?? "", url: e.url ?? "" };
    const login = showsLoginRows(s);
    const kind = login
      ? []
      : [
          el("dt", { textContent: "Kind" }),
          el("dd", {
            className: "value",
            dataset: { field: "kind" },
            textContent: KIND_LABEL[s.kind ?? "login"],
          }),
          el("dd", { className: "field-actions" }),
        ];
    const rows = FIELDS.filter((f) => (f.always && login) || values[f.key]).flatMap((f) =>
      this.valueRow({
        key: f.key,
        label: f.label,
        value: values[f.key],
        secret: f.secret,
        className: f.key === "notes" ? "value notes" : "value",
        empty: "—",
        copy: values[f.key] ? () => void this.copy(f.key) : null,
      }),
    );
    const extra = extraRows(s).flatMap((f) =>
      this.valueRow({
        key: f.key,
        label: f.label,
        value: f.value,
        secret: f.secret,
        copy: () => void this.copyText(f.label, f.value),
      }),
    );
    this.host
      .$("revealed-fields")
      .replaceChildren(
        ...kind,
        ...rows,
        ...extra,
        ...passwordDates(s),
        ...passkeyRows(s, this.shared ? undefined : (p) => this.removePasskey(e, p)),
      );
    this.mask();
  }

  /** One revealed row: its term, its value (masked behind Show when secret) and its Copy. */
  private valueRow(o: {
    key: string;
    label: string;
    value: string;
    secret?: boolean;
    className?: string;
    empty?: string;
    copy: (() => void) | null;
  }): HTMLElement[] {
    const dd = el("dd", {
      className: o.className ?? "value",
      dataset: { field: o.key, label: o.label },
    });
    this.values.set(dd, o.value);
    const actions = el("dd", { className: "field-actions" });
    if (o.secret) {
      dd.dataset.secret = "true";
      const toggle = el("button", { type: "button", className: "secondary show" });
      toggle.addEventListener("click", () => this.setShown(dd, dd.dataset.masked === "true"));
      actions.append(toggle);
    } else dd.textContent = o.value || (o.empty ?? "");
    if (o.copy) {
      const copy = el("button", { type: "button", className: "secondary", textContent: "Copy" });
      copy.setAttribute("aria-label", `Copy ${o.label.toLowerCase()}`);
      copy.addEventListener("click", o.copy);
      actions.append(copy);
    }
    return [el("dt", { textContent: o.label }), dd, actions];
  }

  /**
   * "This site supports passkeys" under a login of the person's with no passkey, when the registry
   * lists its site. Drawn when the list arrives, if the same entry is still open; without the list
   * (offline, an error) the entry simply shows no hint.
   */
  private async drawPasskeyHint(e: LocalEntry, s: EntrySecrets, mine: number) {
    if (s.passkeys?.length || !showsLoginRows(s)) return;
    const site = await passkeySiteFor(this.host.app.api, e.website || e.url || "").catch(
      () => null,
    );
    if (!site || mine !== this.opened) return;
    this.host.$("revealed-fields").append(...passkeyHintRows(site));
  }

  /** Re-seals the entry without one passkey (the others, and every other field, as they are). */
  private async removePasskey(e: LocalEntry, p: StoredPasskey) {
    const { app } = this.host;
    try {
      const current = (await app.db.entry(app.session.userId, e.id)) ?? e;
      const secrets = await app.vault.secrets(current);
      const passkeys = (secrets.passkeys ?? []).filter((k) => k.credential_id !== p.credential_id);
      await app.vault.update(e.id, {
        ...secrets,
        passkeys,
        name: current.name,
        website: current.website ?? "",
        url: current.url ?? "",
        tags: current.tags,
      });
      app.toast(
        `Deleted the passkey of ${p.user_name || p.display_name || "this account"} on ${p.rp_id}`,
      );
      const saved = await app.db.entry(app.session.userId, e.id);
      if (saved && this.entry?.id === e.id) await this.open(saved);
      await app.changed();
    } catch (err) {
      app.toast(`Cannot delete the passkey: ${errorText(err)}`);
    }
  }

  private drawTabs() {
    const tab = (id: string, title: string) => {
      const b = el("button", {
        type: "button",
        id: `tab-${id}`,
        textContent: title,
        dataset: { tab: id },
      });
      b.setAttribute("role", "tab");
      b.setAttribute("aria-controls", `panel-${id}`);
      b.addEventListener("click", () => this.showTab(id));
      return b;
    };
    // A shared entry's tools belong to its owner: only its details here.
    const tools = this.shared ? [] : entryTools.filter((t) => t.id !== INLINE_TOOL);
    this.tabs.replaceChildren(tab("details", "Details"), ...tools.map((t) => tab(t.id, t.title)));
    this.tabs.onkeydown = (ev) => {
      const all = Array.from(this.tabs.querySelectorAll<HTMLButtonElement>("[role=tab]"));
      const at = all.indexOf(document.activeElement as HTMLButtonElement);
      const to =
        ev.key === "ArrowRight"
          ? all[(at + 1) % all.length]
          : ev.key === "ArrowLeft"
            ? all[(at - 1 + all.length) % all.length]
            : undefined;
      if (!to) return;
      ev.preventDefault();
      to.focus();
      to.click();
    };
    this.showTab("details");
  }

  /** Takes the website-account tools' tabs away, once the entry is known to be of another kind. */
  private dropLoginTools() {
    for (const t of entryTools.filter((t) => t.loginOnly)) {
      const b = this.tabs.querySelector<HTMLButtonElement>(`[data-tab="${t.id}"]`);
      if (b?.getAttribute("aria-selected") === "true") this.showTab("details");
      b?.remove();
    }
  }

  /** Shows one tab's panel; a tool's panel is made and mounted the first time. */
  showTab(id: string) {
    for (const b of Array.from(this.tabs.querySelectorAll<HTMLButtonElement>("[role=tab]"))) {
      const on = b.dataset.tab === id;
      b.setAttribute("aria-selected", String(on));
      b.tabIndex = on ? 0 : -1;
    }
    let panel = document.getElementById(`panel-${id}`);
    if (!panel) {
      const tool = entryTools.find((t) => t.id === id);
      if (!tool || !this.secrets) return;
      panel = el("section", {
        id: `panel-${id}`,
        className: "tab-panel entry-tool",
        dataset: { tool: id },
      });
      panel.setAttribute("role", "tabpanel");
      panel.setAttribute("aria-labelledby", `tab-${id}`);
      this.tools.append(panel);
      const mine = this.opened;
      void this.secrets
        .then((s) => mine === this.opened && this.mountTool(tool, panel!, s, true))
        .catch(() => undefined);
    }
    for (const p of Array.from(this.tools.querySelectorAll<HTMLElement>(".tab-panel")))
      p.hidden = p !== panel;
  }

  private mountTool(tool: EntryToolDef, into: HTMLElement, fields: EntrySecrets, own = false) {
    const e = this.entry!;
    const { app } = this.host;
    const root = el("div");
    if (own)
      into.replaceChildren(
        el("h3", { className: "visually-hidden", textContent: tool.title }),
        root,
      );
    else
      into.append(
        el(
          "section",
          { className: "entry-tool inline-tool", dataset: { tool: tool.id } },
          el("h3", { textContent: tool.title }),
          root,
        ),
      );
    const ctx: EntryContext = {
      app,
      id: e.id,
      entry: e,
      fields,
      async save(changes) {
        const current = (await app.db.entry(app.session.userId, e.id)) ?? e;
        const secrets = await app.vault.secrets(current);
        await app.vault.update(e.id, {
          ...secrets,
          name: current.name,
          website: current.website ?? "",
          url: current.url ?? "",
          tags: current.tags,
          ...changes,
        });
        await app.changed();
      },
    };
    const mine = this.opened;
    void tool.load().then(async (m) => {
      if (mine !== this.opened) return;
      const u = await m.mount(root, ctx);
      if (typeof u !== "function") return;
      if (mine === this.opened) this.unmounts.push(u);
      else u();
    });
  }

  /** Shortcuts on an open entry (outside text fields): c password, u username, o code, Esc back. */
  private onKey(ev: KeyboardEvent) {
    const t = ev.target as HTMLElement;
    if (
      ev.ctrlKey ||
      ev.metaKey ||
      ev.altKey ||
      t.closest("input, textarea, select, [contenteditable]")
    )
      return;
    const act: Record<string, () => void> = {
      c: () => void this.copy("password"),
      u: () => void this.copy("username"),
      o: () => void this.copy("code"),
      Escape: () => this.leave(),
    };
    const run = act[ev.key];
    if (!run) return;
    ev.preventDefault();
    run();
  }
}

/**
 * When the password was set, and the previous ones (kept in the envelope, newest first): each
 * shown only while its disclosure is open, so none sits in the page unasked.
 */
function passwordDates(s: EntrySecrets): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (s.password_changed_at)
    out.push(
      el("dt", { textContent: "Password changed" }),
      el("dd", {
        className: "value",
        dataset: { field: "password_changed_at" },
        textContent: formatTime(s.password_changed_at),
      }),
      el("dd", { className: "field-actions" }),
    );
  const past = s.password_history ?? [];
  if (!past.length) return out;
  const list = el("ol", { className: "password-history" });
  const box = el(
    "details",
    {},
    el("summary", {
      textContent: `Show ${past.length} previous password${past.length === 1 ? "" : "s"}`,
    }),
    list,
  );
  box.addEventListener("toggle", () => {
    list.replaceChildren(
      ...(box.open
        ? past.map((p) =>
            el(
              "li",
              {},
              el("span", { className: "mono", textContent: p.password }),
              ` (until ${formatTime(p.changed_at)})`,
            ),
          )
        : []),
    );
  });
  out.push(
    el("dt", { textContent: "Previous passwords" }),
    el("dd", { className: "value", dataset: { field: "password_history" } }, box),
    el("dd", { className: "field-actions" }),
  );
  return out;
}

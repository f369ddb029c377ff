/** The vault section (/vault): list, search, reveal, copy, add, edit, delete, and the entry tools. */
import { ApiError, OfflineError } from "../api";
import type { EntrySecrets } from "../crypto";
import type { LocalEntry } from "../db";
import { entryTools } from "../entry-tools";
import { $, el, input, requestBackgroundSync } from "../pages/common";
import { clearSyncCache } from "../session";
import type { AppContext, EntryContext, Unmount } from "../shell/context";
import type { EntryInput } from "../vault";
import { VAULT_MARKUP } from "./vault-markup";

const REVEAL_HIDE_MS = 30_000;
/** What a row shows; its buttons read the entry itself from the store when pressed. */
type Row = { id: string; name: string; site: string };
const rowOf = (e: LocalEntry): Row => ({ id: e.id, name: e.name, site: e.website ?? e.url ?? "" });
/** Rows drawn at once (more than any screen holds), then slices of the rest between tasks. */
const FIRST_ROWS = 200;
const ROW_SLICE = 1000;

export async function mount(root: HTMLElement, app: AppContext): Promise<Unmount> {
  const { db, session, keys, vault, api, sync, trust, toast } = app;
  root.innerHTML = VAULT_MARKUP;
  const form = $("entry-form") as HTMLFormElement;
  const list = $("entries");
  let hideTimer: ReturnType<typeof setTimeout> | undefined;
  let unmountTools: Unmount[] = [];
  let gone = false;

  function button(label: string, aria: string, onClick: () => void) {
    const b = el("button", { type: "button", textContent: label, className: "secondary", onclick: onClick });
    b.setAttribute("aria-label", aria);
    return b;
  }

  /**
   * Once every entry is bound on the server (synced, none unbound locally, nothing queued), this
   * device refuses unbound envelopes of this vault from then on: a server can no longer serve a
   * pre-migration blob in another entry's place.
   */
  async function noteFullyBound(all: LocalEntry[]) {
    if (!(await db.meta(`lastSync:${session.userId}`)) || (await db.pendingCount(session.userId)) > 0) return;
    if ((await vault.legacyCount(all)) === 0) await trust.raise({ bound: true });
  }

  let drawing = 0;

  /** The entry as the store holds it when a row's button is pressed (the row may be older). */
  async function current(r: Row): Promise<LocalEntry | null> {
    const e = await db.entry(session.userId, r.id);
    if (!e) toast(`${r.name} is no longer in the vault`);
    return e ?? null;
  }
  const withEntry = (r: Row, act: (e: LocalEntry) => Promise<void>) => () => void current(r).then((e) => (e ? act(e) : undefined));

  function row(e: Row, queued: Set<string>): HTMLLIElement {
    const li = el("li", { dataset: { id: e.id } }, el("span", { className: "name", textContent: e.name }), el("span", { className: "muted", textContent: e.site }));
    if (queued.has(e.id)) li.append(el("span", { className: "pending-mark", textContent: "not yet synced" }));
    li.append(
      el(
        "span",
        { className: "actions" },
        button("Reveal", `Reveal ${e.name}`, withEntry(e, reveal)),
        button("Copy password", `Copy password of ${e.name}`, withEntry(e, copy)),
        button("Edit", `Edit ${e.name}`, withEntry(e, edit)),
        button("Delete", `Delete ${e.name}`, withEntry(e, remove)),
      ),
    );
    return li;
  }

  /**
   * The first rows at once and the rest in slices between tasks, so a vault of thousands shows its
   * first screen without waiting for the last row; a newer drawing stops an older one.
   * `data-rows` counts the rows drawn so far.
   */
  function draw(entries: Row[], queued: Set<string>) {
    const mine = ++drawing;
    let at = Math.min(FIRST_ROWS, entries.length);
    list.replaceChildren(...entries.slice(0, at).map((e) => row(e, queued)));
    list.dataset.rows = String(at);
    const more = () => {
      if (mine !== drawing || gone) return;
      list.append(...entries.slice(at, at + ROW_SLICE).map((e) => row(e, queued)));
      at = Math.min(at + ROW_SLICE, entries.length);
      list.dataset.rows = String(at);
      if (at < entries.length) setTimeout(more, 0);
    };
    if (at < entries.length) setTimeout(more, 0);
  }

  /**
   * The last full listing (ids, names, sites: plaintext columns the store holds anyway) kept in one
   * metadata record, so the next mount draws it before the store's full read, which deserialises
   * every entry with its search tokens and takes seconds for a vault of thousands. Written only
   * when it changed.
   */
  const LISTING = `listing:${session.userId}`;
  let listed = "";
  async function keepListing(rows: Row[]) {
    const sig = rows.map((r) => `${r.id}\u0001${r.name}\u0001${r.site}`).join("\u0002");
    if (sig === listed) return;
    listed = sig;
    await db.setMeta(LISTING, rows);
  }

  async function renderList() {
    // One read of the store serves the whole paint (a read deserialises every entry).
    const all = await vault.entries();
    const query = input("search").value.trim();
    const entries = query ? await vault.search(query, all) : await vault.list(all);
    const queued = new Set((await db.pending(session.userId)).map((p) => p.entryId));
    if (gone) return;
    const rows = entries.map(rowOf);
    draw(rows, queued);
    if (!query) void keepListing(rows);
    $("empty").hidden = entries.length > 0;
    $("entries-heading").textContent = query ? `Entries matching “${query}” (${entries.length})` : `Entries (${entries.length})`;

    // Then what needs the keys, with the list already on screen: unbound entries re-sealed (queued
    // updates, sent now rather than at the next periodic sync), placeholders sealed, search tokens
    // computed for what came from the server.
    const migrated = await vault.migrate(all);
    const { unreadable, reasons, indexed, sealed } = await vault.ensureIndexed(all);
    if ((migrated > 0 || sealed > 0) && navigator.onLine) void sync.syncNow();
    await noteFullyBound(all);
    if (gone) return;
    const count = `${unreadable} ${unreadable === 1 ? "entry" : "entries"}`;
    $("foreign-key").hidden = unreadable === 0;
    // Refused envelopes say why; the rest are under another vault key, most likely after a
    // passphrase change on another device.
    $("foreign-key").textContent = reasons.length
      ? `${count} not shown. ${reasons.join(" ")}`
      : `${count} cannot be opened with this device's key. If the master passphrase was changed on another device, sign out and sign in with the new one.`;
    // The store or the search tokens changed under the list just drawn: one more paint shows it.
    if (migrated > 0 || sealed > 0 || (indexed > 0 && query)) void app.refresh();
  }

  /**
   * The secrets of an entry. Online, an entry without queued changes is read through the reveal
   * endpoint, so the server records the audit event; offline, or with local changes, the local copy.
   */
  async function secretsOf(e: LocalEntry): Promise<EntrySecrets> {
    const queued = (await db.pending(session.userId)).some((p) => p.entryId === e.id);
    if (navigator.onLine && !queued) {
      try {
        const { envelope } = await api.reveal(e.id);
        return await vault.secrets(e, { wrapped_item_key: envelope.wrappedItemKey, encrypted_data: envelope.encryptedData });
      } catch (err) {
        if (!(err instanceof OfflineError) && !(err instanceof ApiError && err.status === 404)) throw err;
      }
    }
    return vault.secrets(e);
  }

  function toolsFor(e: LocalEntry, fields: EntrySecrets) {
    for (const u of unmountTools) u();
    unmountTools = [];
    const box = $("entry-tools");
    box.replaceChildren();
    const entry: EntryContext = {
      app,
      id: e.id,
      entry: e,
      fields,
      async save(changes) {
        const current = (await db.entry(session.userId, e.id)) ?? e;
        const secrets = await vault.secrets(current);
        await vault.update(e.id, { ...secrets, name: current.name, website: current.website ?? "", url: current.url ?? "", tags: current.tags, ...changes });
        await app.changed();
      },
    };
    for (const tool of entryTools) {
      const root = el("div");
      box.append(el("section", { className: "entry-tool", dataset: { tool: tool.id } }, el("h4", { textContent: tool.title }), root));
      void tool.load().then(async (m) => {
        const u = await m.mount(root, entry);
        if (typeof u === "function") unmountTools.push(u);
      });
    }
  }

  async function reveal(e: LocalEntry) {
    try {
      const s = await secretsOf(e);
      const fields: [string, string][] = [
        ["Username", s.username],
        ["Password", s.password],
        ["Notes", s.notes],
        ["Category", s.category],
        ["TOTP secret", s.totp],
      ];
      $("revealed-fields").replaceChildren(
        ...fields.flatMap(([k, v]) => [el("dt", { textContent: k }), el("dd", { textContent: v || "—", dataset: { field: k.toLowerCase().split(" ")[0]! } })]),
      );
      $("revealed-heading").textContent = e.name;
      $("revealed").hidden = false;
      toolsFor(e, s);
      clearTimeout(hideTimer);
      hideTimer = setTimeout(hideRevealed, REVEAL_HIDE_MS);
    } catch (err) {
      toast(`Cannot reveal: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  function hideRevealed() {
    clearTimeout(hideTimer);
    for (const u of unmountTools) u();
    unmountTools = [];
    if (gone) return;
    $("revealed").hidden = true;
    $("revealed-fields").replaceChildren();
    $("entry-tools").replaceChildren();
  }

  async function copy(e: LocalEntry) {
    try {
      await navigator.clipboard.writeText((await secretsOf(e)).password);
      toast(`Password of ${e.name} copied`);
    } catch (err) {
      toast(`Cannot copy: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  function fillForm(id: string, v: Partial<EntryInput>) {
    input("entry-id").value = id;
    input("f-name").value = v.name ?? "";
    input("f-website").value = v.website ?? "";
    input("f-url").value = v.url ?? "";
    input("f-username").value = v.username ?? "";
    input("f-password").value = v.password ?? "";
    ($("f-notes") as HTMLTextAreaElement).value = v.notes ?? "";
    input("f-category").value = v.category ?? "";
    input("f-totp").value = v.totp ?? "";
    input("f-tags").value = (v.tags ?? []).join(", ");
    $("form-heading").textContent = id ? `Edit ${v.name ?? ""}` : "Add an entry";
    $("cancel-edit").hidden = !id;
  }

  async function edit(e: LocalEntry) {
    try {
      const s = await vault.secrets(e);
      fillForm(e.id, { ...s, name: e.name, website: e.website ?? "", url: e.url ?? "", tags: e.tags });
      input("f-name").focus();
    } catch (err) {
      toast(`Cannot edit: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  async function remove(e: LocalEntry) {
    if (!confirm(`Delete ${e.name}?`)) return;
    await vault.remove(e.id);
    await app.changed();
  }

  function setBusy(busy: boolean) {
    form.setAttribute("aria-busy", String(busy));
    for (const f of Array.from(form.elements)) (f as HTMLInputElement).disabled = busy;
  }

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    $("form-error").textContent = "";
    const v: EntryInput = {
      name: input("f-name").value,
      website: input("f-website").value,
      url: input("f-url").value,
      username: input("f-username").value,
      password: input("f-password").value,
      notes: ($("f-notes") as HTMLTextAreaElement).value,
      category: input("f-category").value,
      totp: input("f-totp").value,
      tags: input("f-tags").value.split(",").map((t) => t.trim()).filter(Boolean),
    };
    const id = input("entry-id").value;
    // The form is locked while the entry is encrypted and stored, so nothing typed meanwhile is lost.
    setBusy(true);
    (id ? vault.update(id, v) : vault.create(v))
      .then(async () => {
        // The form is handed back once the list and the pending count show the saved entry.
        await app.refresh();
        fillForm("", {});
        setBusy(false);
        toast(id ? `Saved ${v.name.trim()}` : `Added ${v.name.trim()}`);
        await app.changed();
      })
      .catch((err: unknown) => {
        setBusy(false);
        $("form-error").textContent = err instanceof Error ? err.message : String(err);
      });
  });

  $("cancel-edit").addEventListener("click", () => fillForm("", {}));
  $("hide-revealed").addEventListener("click", hideRevealed);
  input("search").addEventListener("input", () => void app.refresh());
  // Through the shell's paint queue, so two renderings never interleave.
  const stopListening = app.onSynced(() => renderList());

  fillForm("", {});
  $("vault-view").hidden = false;
  const cached = await db.meta<Row[]>(LISTING);
  if (cached?.length && !input("search").value.trim()) {
    draw(cached, new Set());
    $("empty").hidden = true;
    $("entries-heading").textContent = `Entries (${cached.length})`;
  }
  await app.refresh();
  // Until here the form cannot submit (see vault-markup.ts): a native submission would put the
  // entry's secrets in a request.
  ($("save") as HTMLButtonElement).disabled = false;
  return () => {
    hideRevealed();
    gone = true;
    stopListening();
  };
}

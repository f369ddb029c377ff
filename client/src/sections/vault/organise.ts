/**
 * The vault's organisation: favourites, folders and kinds. The favourite mark and the folder's name
 * live in each entry's sealed payload (docs/decisions/vault.md, "Vault: favourites and folders"), so this
 * page learns them as it opens entries (the same pass that learns usernames) and filters on what it
 * has learnt. A folder is made with "New folder" (kept on this device, sealed, until an entry is
 * moved into it: vault-folders.ts) or by moving a first entry into it, renamed or deleted by
 * re-sealing its entries.
 */
import type { EntrySecrets } from "../../../../core/crypto";
import type { LocalEntry } from "../../../../core/store";
import { $, el } from "../../pages/common";
import type { AppContext } from "../../shell/context";
import { EmptyFolders } from "./folders";

export type Kind = "login" | "note" | "card" | "identity" | "ssh_key";
export const KINDS: Record<Kind, string> = {
  login: "Logins",
  note: "Secure notes",
  card: "Cards",
  identity: "Identities",
  ssh_key: "SSH keys",
};

export type Organisation = { favorite: boolean; folder: string; kind: Kind };

/**
 * The kind filter's "With passkeys": not a kind of its own (a login holds its passkeys), read from
 * the entry's plaintext `has_passkey`, so it needs no entry opened.
 */
const WITH_PASSKEYS = "passkey";

/** An entry's kind, from what it holds: an identity says so; a note has notes and no credential. */
export function kindOf(e: Pick<LocalEntry, "tags">, s: EntrySecrets): Kind {
  // The kind sealed in the entry wins; entries from before it existed are judged by what they hold.
  if (s.kind) return s.kind;
  if (s.category.trim().toLowerCase() === "identity" || e.tags.includes("identity"))
    return "identity";
  if (!s.username && !s.password && !s.totp && s.notes.trim()) return "note";
  return "login";
}

/** The folder filter's value for entries in no folder (a folder name is never empty). */
const NO_FOLDER = "\u0000none";
/** The detail's folder choice that asks for a new folder's name. */
const NEW_FOLDER = "\u0000new";
const byName = new Intl.Collator(undefined, { sensitivity: "base" });

export class Organiser {
  /** What was learnt per entry, with the envelope it was read from: a changed entry is read again. */
  private readonly known = new Map<string, Organisation & { sig: string | null }>();
  private readonly folderFilter = $("folder-filter") as HTMLSelectElement;
  private readonly kindFilter = $("kind-filter") as HTMLSelectElement;
  private readonly favouritesOnly = $("favourites-only");
  private readonly entryFolder = $("entry-folder") as HTMLSelectElement;
  // Held from the start: a change finishing after the person left the vault finds them detached
  // rather than missing from the page.
  private readonly folderActions = $("folder-actions");
  private readonly renameButton = $("rename-folder");
  private readonly deleteButton = $("delete-folder");
  private readonly star = $("favorite-entry") as HTMLButtonElement;
  private openId: string | null = null;
  /** Folders with no entry in them (yet), kept on this device. */
  private readonly empty: EmptyFolders;

  constructor(
    private readonly app: AppContext,
    /** Draws the list again (a filter changed, or what it filters on). */
    private readonly refilter: () => void,
    /** Settles once every entry of the vault has been read: a rename or delete must reach them all. */
    private readonly allRead: () => Promise<unknown>,
  ) {
    this.folderFilter.addEventListener("change", () => {
      this.showFolderActions();
      refilter();
    });
    this.kindFilter.addEventListener("change", () => refilter());
    this.favouritesOnly.addEventListener("click", () => {
      this.favouritesOnly.setAttribute(
        "aria-pressed",
        String(this.favouritesOnly.getAttribute("aria-pressed") !== "true"),
      );
      refilter();
    });
    this.renameButton.addEventListener("click", () => void this.renameFolder());
    this.deleteButton.addEventListener("click", () => void this.deleteFolder());
    this.star.addEventListener("click", () => void this.toggleFavourite());
    this.entryFolder.addEventListener("change", () => void this.moveOpenEntry());
    $("new-folder").addEventListener("click", () => void this.newFolder());
    this.empty = new EmptyFolders(app);
    this.drawFolders();
    void this.empty.load().then(() => this.drawFolders());
  }

  of(e: LocalEntry): Organisation | undefined {
    const o = this.known.get(e.id);
    return o && o.sig === e.encrypted_data ? o : undefined;
  }

  /** Notes what an opened entry holds; true when it changes what the list shows. */
  learn(e: LocalEntry, s: EntrySecrets): boolean {
    const before = this.known.get(e.id);
    const o = {
      favorite: s.favorite === true,
      folder: s.folder ?? "",
      kind: kindOf(e, s),
      sig: e.encrypted_data,
    };
    this.known.set(e.id, o);
    if (e.id === this.openId) this.showOpen(e.id);
    // A first reading matters to the list only if it shows a mark or folder, or a filter is on.
    if (!before) return o.favorite || !!o.folder || this.active();
    return before.favorite !== o.favorite || before.folder !== o.folder || before.kind !== o.kind;
  }

  /** Whether any organisation filter is on (then entries not yet opened are left out). */
  active(): boolean {
    return (
      !!this.folderFilter.value ||
      !!this.kindFilter.value ||
      this.favouritesOnly.getAttribute("aria-pressed") === "true"
    );
  }

  /** Whether entries shared with the person show: they have no mark, folder or kind of theirs. */
  sharedShown(): boolean {
    return (
      this.favouritesOnly.getAttribute("aria-pressed") !== "true" &&
      !this.folderFilter.value &&
      (!this.kindFilter.value || this.sharedOnly())
    );
  }

  /** The "Shared with me" kind: only entries shared with the person. */
  sharedOnly(): boolean {
    return this.kindFilter.value === "shared";
  }

  matches(e: LocalEntry): boolean {
    if (!this.active()) return true;
    if (this.sharedOnly()) return false;
    const kind = this.kindFilter.value === WITH_PASSKEYS ? "" : this.kindFilter.value;
    if (this.kindFilter.value === WITH_PASSKEYS && e.has_passkey !== true) return false;
    const favourites = this.favouritesOnly.getAttribute("aria-pressed") === "true";
    const folder = this.folderFilter.value;
    if (!favourites && !folder && !kind) return true;
    const o = this.of(e);
    if (!o) return false;
    if (favourites && !o.favorite) return false;
    if (folder && (folder === NO_FOLDER ? o.folder !== "" : o.folder !== folder)) return false;
    return !kind || o.kind === kind;
  }

  /** The filters in words, for the list's heading. */
  describe(): string {
    const parts: string[] = [];
    if (this.favouritesOnly.getAttribute("aria-pressed") === "true") parts.push("favourites");
    const folder = this.folderFilter.value;
    if (folder) parts.push(folder === NO_FOLDER ? "in no folder" : `in folder “${folder}”`);
    if (this.sharedOnly()) parts.push("shared with me");
    else if (this.kindFilter.value === WITH_PASSKEYS) parts.push("with passkeys");
    else if (this.kindFilter.value) parts.push(KINDS[this.kindFilter.value as Kind].toLowerCase());
    return parts.length ? `: ${parts.join(", ")}` : "";
  }

  /** Folders that entries carry (as far as read), with the empty ones kept on this device. */
  folders(): string[] {
    return [...new Set([...this.learntFolders(), ...this.empty.list()])].sort(byName.compare);
  }

  private learntFolders(): Set<string> {
    return new Set([...this.known.values()].map((o) => o.folder).filter(Boolean));
  }

  /** The named folder the list is filtered on, if any. */
  folderShown(): string | null {
    const folder = this.folderFilter.value;
    return folder && folder !== NO_FOLDER ? folder : null;
  }

  /**
   * The folder filter's and the detail's folder choices: every folder learnt, the choices kept (the
   * filter on `filterTo` instead when given: a renamed folder's new name).
   */
  drawFolders(filterTo?: string) {
    // A kept empty folder that an entry now carries lives in that entry: no longer kept here.
    const learnt = this.learntFolders();
    for (const f of this.empty.list()) if (learnt.has(f)) void this.empty.remove(f);
    const folders = this.folders();
    const sig = folders.join("\u0001");
    if (this.folderFilter.dataset.sig !== sig) {
      this.folderFilter.dataset.sig = sig;
      const current = filterTo ?? this.folderFilter.value;
      const option = (value: string, text: string) => el("option", { value, textContent: text });
      this.folderFilter.replaceChildren(
        option("", "All folders"),
        option(NO_FOLDER, "No folder"),
        ...folders.map((f) => option(f, f)),
      );
      this.folderFilter.value = current === NO_FOLDER || folders.includes(current) ? current : "";
      this.entryFolder.replaceChildren(
        option("", "No folder"),
        ...folders.map((f) => option(f, f)),
        option(NEW_FOLDER, "New folder…"),
      );
    }
    this.showFolderActions();
    if (this.openId) this.showOpen(this.openId);
  }

  private showFolderActions() {
    const folder = this.folderFilter.value;
    const named = !!folder && folder !== NO_FOLDER;
    this.folderActions.hidden = !named;
    if (named) {
      this.renameButton.setAttribute("aria-label", `Rename folder ${folder}`);
      this.deleteButton.setAttribute("aria-label", `Delete folder ${folder}`);
    }
  }

  /** The open entry's favourite button and folder choice (null: no entry open). */
  showOpen(id: string | null) {
    this.openId = id;
    const o = id ? this.known.get(id) : undefined;
    this.star.setAttribute("aria-pressed", String(o?.favorite === true));
    this.star.querySelector(".star")!.textContent = o?.favorite ? "★" : "☆";
    this.star.disabled = !o;
    this.entryFolder.disabled = !o;
    this.entryFolder.value = o?.folder ?? "";
  }

  /** Re-seals entries with a change; the list is drawn again from the store once all are queued. */
  private async organise(
    ids: string[],
    change: { favorite?: boolean; folder?: string },
    done: string,
    filterTo?: string,
  ) {
    try {
      for (const id of ids) {
        await this.app.vault.organise(id, change);
        // Known at once (no need to open the new envelope): the filters and the detail follow.
        const e = await this.app.db.entry(this.app.session.userId, id);
        const o = this.known.get(id);
        if (e && o) this.known.set(id, { ...o, ...change, sig: e.encrypted_data });
      }
      // The filter moves with a renamed folder at once, not after the repaint that follows.
      this.drawFolders(filterTo);
      this.app.toast(done);
    } catch (err) {
      this.app.toast(`Not changed: ${err instanceof Error ? err.message : String(err)}`);
    }
    await this.app.changed();
  }

  private async toggleFavourite() {
    const id = this.openId;
    const o = id ? this.known.get(id) : undefined;
    if (!id || !o) return;
    await this.organise(
      [id],
      { favorite: !o.favorite },
      o.favorite ? "Removed from favourites" : "Added to favourites",
    );
  }

  private async moveOpenEntry() {
    const id = this.openId;
    const o = id ? this.known.get(id) : undefined;
    if (!id || !o) return;
    let folder = this.entryFolder.value;
    if (folder === NEW_FOLDER) {
      folder = (prompt("Name of the new folder") ?? "").trim();
      if (!folder) {
        this.entryFolder.value = o.folder;
        return;
      }
    }
    if (folder === o.folder) return;
    // The folder left stays, empty, if this was its last entry (as far as the pass has read).
    const left = o.folder && this.inFolder(o.folder).every((other) => other === id) ? o.folder : "";
    if (left) await this.empty.add(left);
    await this.organise(
      [id],
      { folder },
      folder ? `Moved to ${folder}` : "Moved out of its folder",
    );
  }

  /** "New folder": a folder with no entry yet, which the list then shows (empty). */
  private async newFolder() {
    const name = (prompt("Name of the new folder") ?? "").trim();
    if (!name) return;
    if (!this.folders().includes(name)) {
      await this.empty.add(name);
      this.app.toast(
        `Folder ${name} made: open an entry and choose it under “In folder” to move the entry in`,
      );
    }
    this.drawFolders(name);
    this.folderFilter.value = name;
    this.showFolderActions();
    this.refilter();
  }

  private inFolder(folder: string): string[] {
    return [...this.known.entries()].filter(([, o]) => o.folder === folder).map(([id]) => id);
  }

  private async renameFolder() {
    const folder = this.folderFilter.value;
    if (!folder || folder === NO_FOLDER) return;
    const name = (prompt(`New name for the folder ${folder}`, folder) ?? "").trim();
    if (!name || name === folder) return;
    await this.allRead();
    await this.empty.rename(folder, name);
    // The filter follows the folder to its new name.
    const ids = this.inFolder(folder);
    if (ids.length)
      await this.organise(ids, { folder: name }, `Renamed ${folder} to ${name}`, name);
    else {
      this.drawFolders(name);
      this.app.toast(`Renamed ${folder} to ${name}`);
    }
    this.folderFilter.value = name;
    this.showFolderActions();
    this.refilter();
  }

  private async deleteFolder() {
    const folder = this.folderFilter.value;
    if (!folder || folder === NO_FOLDER) return;
    await this.allRead();
    const ids = this.inFolder(folder);
    const question = ids.length
      ? ` Its ${ids.length} ${ids.length === 1 ? "entry stays" : "entries stay"} in the vault, in no folder.`
      : " It is empty.";
    if (!confirm(`Delete the folder ${folder}?${question}`)) return;
    this.folderFilter.value = "";
    await this.empty.remove(folder);
    if (ids.length) await this.organise(ids, { folder: "" }, `Deleted the folder ${folder}`);
    else {
      this.drawFolders();
      this.app.toast(`Deleted the folder ${folder}`);
      this.refilter();
    }
  }
}

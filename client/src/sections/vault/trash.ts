/**
 * The vault's Trash (docs/decisions/vault.md, "Vault: a trash for deleted entries"): entries
 * deleted on any device, kept by the server for its retention time. The list is the server's
 * (a deleted entry has left this device's store), so it is read when the count may have changed
 * and when the person opens it; a restore goes through the server's clock and comes back to every
 * device with its next pull.
 */
import type { WireResponse } from "../../../../core/api";
import { el, errorText, formatTime } from "../../../../core/ui";
import type { AppContext } from "../../shell/context";
import { dialog } from "../../shell/confirm-dialog";

export const TRASH_ENDPOINTS = {
  list: {
    method: "GET",
    path: "/api/passwords/trash",
    query: ["page", "limit"],
    reads: ["data", "pagination", "retention_days"],
  },
  restore: { method: "POST", path: "/api/passwords/trash/{id}/restore", reads: ["data"] },
  purge: { method: "DELETE", path: "/api/passwords/trash/{id}", reads: ["success"] },
  empty: { method: "DELETE", path: "/api/passwords/trash", reads: ["purged"] },
} as const;

type Trashed = WireResponse<"/api/passwords/trash", "get">["data"][number];

/** One page is the whole trash for nearly everyone; the count is the server's total either way. */
const PAGE = 200;

/** A yes/no question in the app's modal dialog (a button to confirm, one to keep). */
function confirmDanger(title: string, lead: string, yes: string): Promise<boolean> {
  const { body, close } = dialog(title, lead);
  return new Promise((resolve) => {
    const ok = el("button", { type: "button", id: "confirm-yes", className: "danger" }, yes);
    const no = el("button", { type: "button", id: "confirm-no", className: "secondary" }, "Cancel");
    const done = (answer: boolean) => {
      close();
      resolve(answer);
    };
    ok.addEventListener("click", () => done(true));
    no.addEventListener("click", () => done(false));
    body.append(el("div", { className: "row" }, ok, no));
    ok.focus();
  });
}

export class VaultTrash {
  private open = false;
  private items: Trashed[] = [];
  private reading = 0;
  /**
   * The live entries and queued changes the trash was last read for: a change of either (a delete
   * pushed, a restore pulled, another device's) reads it again; a sync that moved nothing does not.
   */
  private seenLive = "";

  constructor(
    private readonly app: AppContext,
    private readonly $: (id: string) => HTMLElement,
    /** The list pane, marked while the trash is shown in place of the entries. */
    private readonly pane: HTMLElement,
    /** After a restore: the page pulls, so the entry is back in the list. */
    private readonly restored: () => Promise<void>,
  ) {
    $("trash-toggle").addEventListener("click", () => this.show(!this.open));
    $("empty-trash").addEventListener("click", () => void this.empty());
  }

  /** Reads the trash again when the live entries or the queue changed since the last read. */
  noteLive(key: string) {
    if (key === this.seenLive) return;
    // Offline the count waits for the next paint online (no request bound to fail).
    if (!navigator.onLine) return void (this.seenLive = "");
    this.seenLive = key;
    void this.read();
  }

  show(open: boolean) {
    if (open === this.open) return;
    this.open = open;
    this.$("trash-toggle").setAttribute("aria-pressed", String(open));
    this.$("trash-view").hidden = !open;
    if (open) this.pane.dataset.trash = "";
    else delete this.pane.dataset.trash;
    if (open) {
      this.draw();
      void this.read().then(() => this.open && this.$("trash-heading").focus());
    }
  }

  /** Reads the list (the count always, the rows when shown); a later read supersedes this one. */
  async read(): Promise<void> {
    const mine = ++this.reading;
    try {
      const r = await this.app.api.request(TRASH_ENDPOINTS.list, {
        query: { page: "1", limit: String(PAGE) },
      });
      if (mine !== this.reading) return;
      this.items = r.data;
      this.$("trash-count").textContent = r.pagination.total ? String(r.pagination.total) : "";
      this.$("trash-toggle").setAttribute(
        "aria-label",
        `Trash, ${r.pagination.total} ${r.pagination.total === 1 ? "entry" : "entries"}`,
      );
      this.$("trash-hint").textContent =
        `Deleted entries stay here for ${r.retention_days} days, then they are deleted for good with their attachments.`;
      this.$("trash-error").textContent = "";
    } catch (err) {
      if (mine !== this.reading) return;
      if (this.open) this.$("trash-error").textContent = `Cannot read the trash: ${errorText(err)}`;
    }
    if (this.open) this.draw();
  }

  private draw() {
    const list = this.$("trash-list");
    list.replaceChildren(...this.items.map((t) => this.row(t)));
    this.$("trash-empty").hidden = this.items.length > 0;
    (this.$("empty-trash") as HTMLButtonElement).disabled = this.items.length === 0;
  }

  private row(t: Trashed): HTMLElement {
    const restore = el("button", { type: "button", className: "secondary" }, "Restore");
    restore.setAttribute("aria-label", `Restore ${t.name}`);
    restore.addEventListener("click", () => void this.restore(t, restore));
    const purge = el("button", { type: "button", className: "danger" }, "Delete for good");
    // The visible words first, then the entry (WCAG 2.5.3: a spoken "Delete for good" finds it).
    purge.setAttribute("aria-label", `Delete for good: ${t.name}`);
    purge.addEventListener("click", () => void this.purge(t));
    return el(
      "li",
      { className: "trash-row" },
      el(
        "span",
        { className: "trash-name" },
        el("strong", {}, t.name),
        el("span", { className: "muted" }, ` deleted ${formatTime(t.deleted_at ?? t.updated_at)}`),
      ),
      el("span", { className: "row" }, restore, purge),
    );
  }

  private async act(run: () => Promise<void>) {
    try {
      await run();
    } catch (err) {
      this.$("trash-error").textContent = errorText(err);
    }
    await this.read();
  }

  private restore(t: Trashed, button: HTMLButtonElement) {
    button.disabled = true;
    return this.act(async () => {
      await this.app.api.request(TRASH_ENDPOINTS.restore, { params: { id: t.id } });
      this.app.toast(`Restored ${t.name}`);
      await this.restored();
    });
  }

  private async purge(t: Trashed) {
    const sure = await confirmDanger(
      `Delete ${t.name} for good?`,
      "It and its attachments are deleted at once and cannot be restored.",
      "Delete for good",
    );
    if (!sure) return;
    await this.act(async () => {
      await this.app.api.request(TRASH_ENDPOINTS.purge, { params: { id: t.id } });
      this.app.toast(`Deleted ${t.name} for good`);
    });
  }

  private async empty() {
    const n = this.items.length;
    const sure = await confirmDanger(
      "Empty the trash?",
      `The ${n === 1 ? "entry" : `${n} entries`} in the trash and their attachments are deleted at once and cannot be restored.`,
      "Empty trash",
    );
    if (!sure) return;
    await this.act(async () => {
      const r = await this.app.api.request(TRASH_ENDPOINTS.empty);
      this.app.toast(`Trash emptied (${r.purged} deleted for good)`);
    });
  }
}

/**
 * The vault's entry list: one row per entry (a letter avatar, the name, the username, the site),
 * drawn in slices so a vault of thousands shows its first screen at once, and moved through with
 * the arrow keys. The avatar is a letter and a colour derived from the name: no favicon or other
 * request is ever made from entry data (a request would tell a third party which sites are in
 * the vault).
 */
import { el } from "../pages/common";

/** What a row shows; the entry itself is read from the store when it is opened. */
export type Row = { id: string; name: string; site: string; favorite?: boolean; /** An entry shared with the person: who shared it, and how. */ shared?: string };

/** Rows drawn at once (more than any screen holds), then the rest in slices between tasks. */
const FIRST_ROWS = 80;
/**
 * Main-thread time a slice of rows may take: well under the 50 ms that makes a task long (RAIL),
 * so a keystroke or a click between two slices is answered at once.
 */
const SLICE_MS = 12;
const AVATAR_COLOURS = 8;

/** The avatar's letter: the first letter or digit of the name, else of the site. */
export function avatarLetter(name: string, site = ""): string {
  const m = /[\p{L}\p{N}]/u.exec(name) ?? /[\p{L}\p{N}]/u.exec(site.replace(/^https?:\/\/(www\.)?/i, ""));
  return m ? m[0].toLocaleUpperCase() : "?";
}

/** One of a few avatar colours, the same for the same name on every device. */
export function avatarColour(name: string): number {
  let h = 0;
  for (const c of name) h = (h * 31 + c.codePointAt(0)!) >>> 0;
  return h % AVATAR_COLOURS;
}

export function avatar(name: string, site: string, large = false): HTMLSpanElement {
  return el("span", { className: `avatar c${avatarColour(name)}${large ? " large" : ""}`, textContent: avatarLetter(name, site), ariaHidden: "true" });
}

export class EntryList {
  private drawing = 0;
  private selected: string | null = null;
  /** Each drawn row's button by entry id: a username learnt late finds its row without a query over thousands. */
  private readonly buttons = new Map<string, HTMLButtonElement>();
  /** What the rows drawn (or being drawn) show: a paint with the same rows leaves them be. */
  private drawn = "";
  /** Settles when the current drawing has every row on the page, or a newer one took its place. */
  private complete: Promise<void> = Promise.resolve();
  private finished: () => void = () => {};
  gone = false;

  constructor(
    private readonly list: HTMLElement,
    /** Usernames opened so far (they live in the encrypted part of the entry). */
    private readonly usernames: Map<string, string>,
    private readonly onOpen: (id: string) => void,
  ) {
    list.addEventListener("click", (ev) => {
      const b = (ev.target as HTMLElement).closest<HTMLButtonElement>("button.entry-row");
      if (b?.dataset.id) onOpen(b.dataset.id);
    });
    list.addEventListener("keydown", (ev) => this.onKey(ev));
  }

  private row(e: Row, queued: Set<string>): HTMLLIElement {
    const text = el(
      "span",
      { className: "row-text" },
      el("span", { className: "name", textContent: e.name }),
      el("span", { className: "row-sub" }, el("span", { className: "user", textContent: this.usernames.get(e.id) ?? "" }), el("span", { className: "site", textContent: e.site })),
    );
    if (e.shared) text.append(el("span", { className: "shared-mark", textContent: e.shared }));
    const b = el("button", { type: "button", className: "entry-row", dataset: { id: e.id } }, avatar(e.name, e.site), text);
    if (e.favorite) b.append(el("span", { className: "fav-mark" }, el("span", { ariaHidden: "true", textContent: "★" }), el("span", { className: "visually-hidden", textContent: "Favourite" })));
    if (queued.has(e.id)) b.append(el("span", { className: "pending-mark", textContent: "not yet synced" }));
    if (e.id === this.selected) b.setAttribute("aria-current", "true");
    this.buttons.set(e.id, b);
    return el("li", { dataset: { id: e.id } }, b);
  }

  /**
   * The first rows at once and the rest in slices of a few milliseconds each between tasks; a newer
   * drawing stops an older one. `data-rows` counts the rows drawn so far.
   */
  draw(entries: Row[], queued: Set<string>) {
    // A periodic sync repaints with what is already on screen: starting the rows again would, at
    // thousands of rows and a busy page, never let the drawing finish.
    const sig = entries.map((e) => `${e.id}\u0001${e.name}\u0001${e.site}\u0001${e.favorite ? 1 : 0}\u0001${e.shared ?? ""}\u0001${queued.has(e.id) ? 1 : 0}`).join("\u0002");
    if (sig === this.drawn && this.list.isConnected) return;
    this.drawn = sig;
    const mine = ++this.drawing;
    this.finished();
    this.complete = new Promise((r) => (this.finished = r));
    this.buttons.clear();
    let at = Math.min(FIRST_ROWS, entries.length);
    this.list.replaceChildren(...entries.slice(0, at).map((e) => this.row(e, queued)));
    this.list.dataset.rows = String(at);
    const more = () => {
      // A newer drawing settled this one when it started.
      if (mine !== this.drawing) return;
      if (this.gone) return this.finished();
      const until = performance.now() + SLICE_MS;
      const slice = document.createDocumentFragment();
      // Checked every 25 rows: the clock read costs more than a row.
      while (at < entries.length && (at % 25 !== 0 || performance.now() < until)) slice.append(this.row(entries[at++]!, queued));
      this.list.append(slice);
      this.list.dataset.rows = String(at);
      if (at < entries.length) setTimeout(more, 0);
      else this.finished();
    };
    if (at < entries.length) setTimeout(more, 0);
    else this.finished();
  }

  /** Settles once every row of the last drawing is on the page (work that can wait waits for it). */
  whenDrawn(): Promise<void> {
    return this.complete;
  }

  private button(id: string): HTMLButtonElement | null {
    return this.buttons.get(id) ?? null;
  }

  /** Shows a username learnt after the row was drawn. */
  setUsername(id: string, username: string) {
    const span = this.button(id)?.querySelector(".user");
    if (span && span.textContent !== username) span.textContent = username;
  }

  /** Marks the open entry's row (aria-current), or none. */
  select(id: string | null) {
    if (this.selected) this.button(this.selected)?.removeAttribute("aria-current");
    this.selected = id;
    if (id) this.button(id)?.setAttribute("aria-current", "true");
  }

  firstId(): string | null {
    return this.list.querySelector<HTMLButtonElement>("button.entry-row")?.dataset.id ?? null;
  }

  /** Moves focus to a row: the first, the open one, or back to where it was. */
  focus(id?: string | null) {
    const b = (id ? this.button(id) : null) ?? this.list.querySelector<HTMLButtonElement>("button.entry-row");
    b?.focus();
    b?.scrollIntoView({ block: "nearest" });
  }

  private onKey(ev: KeyboardEvent) {
    const current = (ev.target as HTMLElement).closest("li");
    if (!current) return;
    const step: Record<string, () => Element | null | undefined> = {
      ArrowDown: () => current.nextElementSibling,
      ArrowUp: () => current.previousElementSibling ?? document.getElementById("search"),
      Home: () => this.list.firstElementChild,
      End: () => this.list.lastElementChild,
    };
    const to = step[ev.key]?.();
    if (to === undefined) return;
    ev.preventDefault();
    const target = to instanceof HTMLInputElement ? to : to?.querySelector<HTMLButtonElement>("button.entry-row");
    target?.focus();
    target?.scrollIntoView({ block: "nearest" });
  }
}
